import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A process that logs through createLogger('info') on a clock it sets: two lines at one millisecond, one a
 * millisecond later in a later turn of the event loop, then exits.
 */
const SCRIPT = `
import { createLogger } from ${JSON.stringify(path.join(root, 'src/logger.ts'))};
import { ManualClock } from ${JSON.stringify(path.join(root, 'test/helpers/clock.ts'))};
const clock = new ManualClock(Date.parse('2026-11-23T16:00:00.000Z'));
const log = createLogger('info', { now: clock.now });
log.info({ n: 1 }, 'first');
log.info({ n: 2 }, 'second');
setImmediate(() => {
  clock.advance(1);
  log.info({ n: 3 }, 'third');
});
`;

describe('the logger', () => {
  it('writes JSON lines stamped with the ISO time of its clock, and every line is out when the process exits', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: root, encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { time: string; msg: string; n: number; service: string });
    expect(lines.map((line) => line.msg)).to.deep.equal(['first', 'second', 'third']);
    // the time is formatted once per millisecond, never kept longer
    expect(lines.map((line) => line.time)).to.deep.equal(['2026-11-23T16:00:00.000Z', '2026-11-23T16:00:00.000Z', '2026-11-23T16:00:00.001Z']);
    for (const line of lines) expect(line.service).to.equal('analytics-desk-server');
  });
});
