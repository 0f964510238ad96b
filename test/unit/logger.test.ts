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

/**
 * A process that logs 50,000 lines (non-ASCII text among them) over 100 turns of the event loop, marking on
 * standard output where each turn ended, then exits at once.
 */
const BURST = `
import fs from 'node:fs';
import { createLogger } from ${JSON.stringify(path.join(root, 'src/logger.ts'))};
const log = createLogger('info');
// standard output may be a pipe in non-blocking mode: a full pipe answers EAGAIN until the reader catches up
const mark = (text) => {
  for (;;) {
    try {
      fs.writeSync(1, text);
      return;
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
};
let n = 0;
const turn = () => {
  for (let i = 0; i < 500; i++, n++) log.info({ n, text: n % 3 === 0 ? 'Coût — Straße 😀' : 'cost' }, 'burst');
  if (n === 50_000) process.exit(0);
  const logged = n;
  setImmediate(() => mark('turn ' + logged + '\\n'));
  setImmediate(turn);
};
turn();
`;

/** A process that logs secrets: fields named as secrets, and errors whose messages carry URLs with passwords. */
const SECRETS = `
import { createLogger } from ${JSON.stringify(path.join(root, 'src/logger.ts'))};
const log = createLogger('info');
log.info({ password: 's3cret', store: { secretKey: 's3cret', bucket: 'kls' } }, 'fields');
log.error({ err: new Error('connect to postgres://desk:s3cret@db.example/desk?token=s3cret failed') }, 'an error');
log.error({ err: 'no answer from postgres://desk@db.example:99999/desk?password=s3cret' }, 'a message');
const inner = new Error('connect to postgres://desk:s3cret@db.example/desk failed');
log.error({ err: new AggregateError([inner], 'every address failed') }, 'aggregate');
const invalid = Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL', input: 'postgres://desk:s3cret@db.example:99999/desk' });
log.error({ err: invalid }, 'own field');
log.error({ err: new Error('outer', { cause: inner }) }, 'cause');
log.warn({ url: 'https://u:s3cret@minio.example/kls?X-Amz-Signature=s3cret', store: { endpoint: new URL('https://u:s3cret@minio.example/') } }, 'other fields');
log.error(inner);
log.info('listening at %s, database %s', 'http://127.0.0.1:8080', 'postgres://desk:s3cret@db.example/desk');
// the configuration's secrets, wherever they stand alone
const withSecrets = createLogger('info', { secrets: ['/etc/desk/client-s3cret.key', 's3cret-token'] });
withSecrets.error({ err: new Error("ENOENT: no such file or directory, open '/etc/desk/client-s3cret.key'") }, 'app database not reachable');
withSecrets.warn({ detail: 'Bad credentials for s3cret-token' }, 'token s3cret-token refused');
`;

describe('the logger', () => {
  it('writes every line of a burst intact and in order, the lines of a turn before the next turn, the last ones as the process exits', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', BURST], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(run.status, run.stderr).to.equal(0);
    const out = run.stdout.trim().split('\n');
    const marks = out.flatMap((line, i) => (line.startsWith('turn ') ? [[i, Number(line.slice(5))]] : []));
    // a turn's mark comes after all of its lines: the n-th mark is preceded by exactly n lines
    expect(marks.length).to.equal(99);
    for (const [at, logged] of marks) expect(at - marks.findIndex(([other]) => other === at), `mark of ${logged}`).to.equal(logged);
    const lines = out.filter((line) => !line.startsWith('turn ')).map((line) => JSON.parse(line) as { n: number; text: string });
    expect(lines.length).to.equal(50_000);
    const wrong = lines.filter((line, i) => line.n !== i || line.text !== (i % 3 === 0 ? 'Coût — Straße 😀' : 'cost'));
    expect(wrong.slice(0, 3)).to.deep.equal([]);
  });

  it('writes JSON lines stamped with the ISO time of its clock, and every line is out when the process exits', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: root, encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { time: string; msg: string; n: number; service: string });
    expect(lines.map((line) => line.msg)).to.deep.equal(['first', 'second', 'third']);
    // the time is formatted once per millisecond, never kept longer
    expect(lines.map((line) => line.time)).to.deep.equal(['2026-11-23T16:00:00.000Z', '2026-11-23T16:00:00.000Z', '2026-11-23T16:00:00.001Z']);
    for (const line of lines) expect(line.service).to.equal('analytics-desk-server');
  });

  it('masks secrets before a line is written: fields named as secrets, URLs in the message and stack of an error', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SECRETS], { cwd: root, encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).not.to.include('s3cret');
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines[0]).to.include({ password: '***' });
    expect(lines[0]!['store']).to.deep.equal({ secretKey: '***', bucket: 'kls' });
    expect(lines[1]!['err'].message).to.equal('connect to postgres://desk:***@db.example/desk?token=*** failed');
    expect(lines[1]!['err'].stack).to.match(/^Error: connect to postgres:\/\/desk:\*\*\*@db\.example\/desk\?token=\*\*\* failed\n/);
    expect(lines[2]!['err']).to.equal('no answer from postgres:***');
    expect(lines[3]!['err'].aggregateErrors[0].message).to.equal('connect to postgres://desk:***@db.example/desk failed');
    expect(lines[3]!['err'].aggregateErrors[0].stack).to.match(/^Error: connect to postgres:\/\/desk:\*\*\*@db\.example\/desk failed\n/);
    expect(lines[4]!['err']).to.include({ code: 'ERR_INVALID_URL', input: 'postgres:***' });
    expect(lines[5]!['err'].message).to.equal('outer: connect to postgres://desk:***@db.example/desk failed');
    expect(lines[5]!['err'].stack).to.include('caused by: Error: connect to postgres://desk:***@db.example/desk failed');
    expect(lines[6]).to.include({ url: 'https://u:***@minio.example/kls?X-Amz-Signature=***' });
    expect(lines[6]!['store']).to.deep.equal({ endpoint: 'https://u:***@minio.example/' });
    expect(lines[7]).to.include({ msg: 'connect to postgres://desk:***@db.example/desk failed' });
    expect(lines[7]!['err'].message).to.equal('connect to postgres://desk:***@db.example/desk failed');
    // a URL with nothing secret is written as it was
    expect(lines[8]).to.include({ msg: 'listening at http://127.0.0.1:8080, database postgres://desk:***@db.example/desk' });
    expect(lines[9]!['err'].message).to.equal("ENOENT: no such file or directory, open '***'");
    expect(lines[10]).to.include({ detail: 'Bad credentials for ***', msg: 'token *** refused' });
  });
});
