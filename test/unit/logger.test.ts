import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** A process that logs through createLogger('info'): two lines at once, one 20 ms later, then exits. */
const SCRIPT = `
import { createLogger } from ${JSON.stringify(path.join(root, 'src/logger.ts'))};
const log = createLogger('info');
log.info({ n: 1 }, 'first');
log.info({ n: 2 }, 'second');
setTimeout(() => log.info({ n: 3 }, 'third'), 20);
`;

describe('the logger', () => {
  it('writes JSON lines with an ISO time per line, and every line is out when the process exits', () => {
    const before = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: root, encoding: 'utf8' });
    const after = Date.now();
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { time: string; msg: string; n: number; service: string });
    expect(lines.map((line) => line.msg)).to.deep.equal(['first', 'second', 'third']);
    for (const line of lines) {
      expect(line.time).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(line.time)).to.be.within(before, after);
      expect(line.service).to.equal('analytics-desk-server');
    }
    // the time is formatted once per millisecond, never kept longer
    expect(Date.parse(lines[2]!.time) - Date.parse(lines[1]!.time)).to.be.at.least(20);
  });
});
