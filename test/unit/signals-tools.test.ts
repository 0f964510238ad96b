import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { bundledCommand, SignalTools } from '../../src/signals/signal-tools.js';
import { runToolOnce, SignalToolError } from '../../src/signals/tool-process.js';
import { WarmWorker } from '../../src/signals/warm-worker.js';
import { tempDir } from '../helpers/server.js';
import { EXAMPLE_SIGNAL } from '../helpers/signals.js';

// A --serve worker: answers {id, result: {echo}}, exits on "crash", hangs on "hang", floods on "flood".
const FAKE_WORKER = `
const readline = require('node:readline');
process.stdout.write('{"ready":true}\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.yaml === 'crash') process.exit(3);
  if (request.yaml === 'hang') return;
  if (request.yaml === 'flood') { process.stdout.write('x'.repeat(3 * 1024 * 1024)); return; }
  process.stdout.write(JSON.stringify({ id: request.id, result: { echo: request.yaml, pid: process.pid } }) + '\\n');
});
`;

describe('signal tool processes', function () {
  this.timeout(30000);
  let dir: { dir: string; remove: () => void };
  let script: string;
  before(() => {
    dir = tempDir('ads-signal-tools-');
    script = path.join(dir.dir, 'worker.cjs');
    fs.writeFileSync(script, FAKE_WORKER);
  });
  after(() => dir.remove());

  it('a warm worker answers in turn, and is restarted after a crash, a hang or a flood', async () => {
    const worker = new WarmWorker([process.execPath, script], { timeoutMs: 500, startTimeoutMs: 10000, maxOutputBytes: 1024 * 1024, cwd: dir.dir });
    try {
      const answers = (await Promise.all(['a', 'b', 'c'].map((yaml) => worker.request({ yaml })))) as { echo: string; pid: number }[];
      expect(answers.map((answer) => answer.echo)).to.deep.equal(['a', 'b', 'c']);
      expect(new Set(answers.map((answer) => answer.pid)).size).to.equal(1);
      for (const [yaml, message] of [['crash', /exited \(code 3\)/], ['hang', /did not answer within 500 ms/], ['flood', /more than 1048576 bytes/]] as const) {
        const failure = await worker.request({ yaml }).then(() => null, (err: unknown) => err);
        expect(failure, yaml).to.be.instanceOf(SignalToolError);
        expect((failure as Error).message).to.match(message);
        const after = (await worker.request({ yaml: 'again' })) as { echo: string; pid: number };
        expect(after.echo).to.equal('again');
      }
      expect(worker.starts).to.equal(4);
    } finally {
      worker.close();
    }
  });

  it('a one-shot run is killed at its time limit and its output is capped', async () => {
    const limits = { timeoutMs: 300, maxOutputBytes: 1000, cwd: dir.dir };
    // the tool never ends by itself: only the time limit can end the run (the test's timeout catches one that waits on)
    const hang = await runToolOnce([process.execPath, '-e', 'setInterval(() => {}, 1000)'], '', limits).catch((err: unknown) => err);
    expect((hang as Error).message).to.match(/did not finish within 300 ms/);
    const flood = await runToolOnce([process.execPath, '-e', 'process.stdout.write("x".repeat(5000))'], '', limits).catch((err: unknown) => err);
    expect((flood as Error).message).to.match(/more than 1000 bytes/);
    const echo = await runToolOnce([process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], 'a; rm -rf / "$(x)"', limits);
    expect(echo).to.include({ code: 0, stdout: 'a; rm -rf / "$(x)"' });
    const missing = await runToolOnce(['/no/such/program'], '', limits).catch((err: unknown) => err);
    expect((missing as Error).message).to.match(/could not be started/);
  });

  it('runs the bundled checker and compiler as warm workers and as one-shot commands alike', async () => {
    const checker = bundledCommand('checker');
    const compiler = bundledCommand('compiler');
    const tmpRoot = fs.mkdtempSync(path.join(dir.dir, 'tmp-'));
    const warm = new SignalTools(checker, compiler, process.cwd(), undefined, tmpRoot);
    const cold = new SignalTools({ argv: checker.argv, bundled: false }, { argv: compiler.argv, bundled: false }, process.cwd(), undefined, tmpRoot);
    try {
      const gold = { tenant: 't', tables: { gold_cases: ['case_id'] } };
      for (const tools of [warm, cold]) {
        expect(await tools.validate(EXAMPLE_SIGNAL, null)).to.deep.equal({ valid: true, errors: [] });
        expect((await tools.validate(EXAMPLE_SIGNAL, gold)).errors.map((error) => error.path)).to.include('contract.time_bucket');
        const compiled = await tools.compile(EXAMPLE_SIGNAL, null);
        expect(compiled.ok && compiled.sql).to.match(/^SELECT 'probe_unbilled_cases' AS "probe_id"/);
        expect((await tools.compile(EXAMPLE_SIGNAL, gold)).ok).to.equal(false);
      }
      expect(warm.workerStarts()).to.deep.equal({ checker: 1, compiler: 1 });
      expect(fs.readdirSync(tmpRoot), 'temporary files are removed').to.deep.equal([]);
    } finally {
      warm.close();
    }
  });
});
