import { expect } from 'chai';
import { streamProgress } from '../../src/appdb/copy/progress.js';

/** A stream that keeps what is written, a terminal or not. */
const recorder = (isTTY: boolean): { isTTY: boolean; text: string; write(chunk: string): void } => ({
  isTTY,
  text: '',
  write(chunk: string) {
    this.text += chunk;
  },
});

describe('app database copy: progress', () => {
  it('prints plain lines off a terminal: each tenth of a large table, and each table at its end', () => {
    const stream = recorder(false);
    const progress = streamProgress(stream);
    progress.begin('copying', 'cells', 100_000);
    for (let done = 1000; done <= 100_000; done += 1000) progress.advance(done);
    progress.end();
    progress.begin('copying', 'notes', 200);
    progress.advance(200);
    progress.end();
    const lines = stream.text.trim().split('\n');
    expect(lines).to.have.length(11);
    expect(lines[0]).to.equal('copying cells: 10,000 of 100,000 rows (10%)');
    expect(lines[8]).to.equal('copying cells: 90,000 of 100,000 rows (90%)');
    expect(lines.slice(9)).to.deep.equal(['copying cells: 100,000 rows, done', 'copying notes: 200 rows, done']);
  });

  it('redraws one line per table on a terminal, with a bar and a percentage, at most every 100 ms', () => {
    const stream = recorder(true);
    let now = 0;
    const progress = streamProgress(stream, () => now);
    progress.begin('verifying', 'cells', 1000);
    progress.advance(250); // within 100 ms of the last drawing: not drawn
    now = 150;
    progress.advance(500);
    progress.end();
    const drawings = stream.text.split('\r\x1b[2K').filter((d) => d !== '');
    expect(drawings).to.deep.equal([
      'verifying cells [........................]   0% 0/1,000 rows',
      'verifying cells [############............]  50% 500/1,000 rows',
      'verifying cells [########################] 100% 1,000/1,000 rows\n',
    ]);
  });
});
