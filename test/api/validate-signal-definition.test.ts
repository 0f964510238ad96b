import { expect } from 'chai';
import fs from 'node:fs';
import { call, expectProblem } from '../helpers/http.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { ALIAS_BOMB, EXAMPLE_SIGNAL, deepFlow, scriptCommand, writeBrokenTenant } from '../helpers/signals.js';

describe('POST /api/probe-builder/validate', function () {
  this.timeout(60000);
  let server: TestServer;
  let broken: string;
  const data = { dir: '', remove: (): void => undefined };
  const validate = (body: unknown, base = server.url): ReturnType<typeof call> => call(base, '/api/probe-builder/validate', { method: 'POST', json: body });

  before(async () => {
    Object.assign(data, tempDir('ads-signal-validate-'));
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    broken = writeBrokenTenant(data.dir);
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('answers valid:true for the example, with and without a tenant', async () => {
    for (const body of [{ yaml: EXAMPLE_SIGNAL }, { yaml: EXAMPLE_SIGNAL, tenant: 'ost.kantonsspital' }]) {
      const res = await validate(body);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ valid: true, errors: [] });
    }
  });

  it('answers valid:false with the path and line of each problem', async () => {
    const res = await validate({ yaml: EXAMPLE_SIGNAL.replace('op: in,', 'op: gt,') });
    expect(res.status).to.equal(200);
    expect(res.body.valid).to.equal(false);
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors[0]).to.include({ path: 'contract.where[1].op', line: 15 });
    expect(res.body.errors[0].message).to.match(/^contract\.where\[1\]\.op: unknown operator "gt".*\(line 15\)$/);
  });

  it('with a tenant, reports a source table or columns missing from its Gold tables', async () => {
    const yaml = EXAMPLE_SIGNAL.replace('money_at_risk: expected_amount', 'money_at_risk: expected_chf');
    const res = await validate({ yaml, tenant: 'kantonsspital' });
    expect(res.body).to.deep.equal({
      valid: false,
      errors: [{ message: 'contract.money_at_risk: column "expected_chf" does not exist in gold_cases of tenant ost.kantonsspital (line 12)', path: 'contract.money_at_risk', line: 12 }],
    });
    expect((await validate({ yaml })).body.valid).to.equal(true);
    const table = await validate({ yaml: EXAMPLE_SIGNAL.replace('source: gold_cases', 'source: gold_unknown'), tenant: 'kantonsspital' });
    expect(table.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['contract.source']);
  });

  it('rejects alias bombs, deep nesting and YAML that does not parse, as valid:false naming the limit', async () => {
    for (const [yaml, reason] of [[ALIAS_BOMB, /aliases/], [deepFlow(8_000), /nesting/], ['probe_id: [\n', /./]] as const) {
      const res = await validate({ yaml });
      expect(res.status).to.equal(200);
      expect(res.body.valid).to.equal(false);
      expect(res.body.errors[0].message).to.match(reason);
    }
    expect((await validate({ yaml: EXAMPLE_SIGNAL })).body.valid).to.equal(true);
  });

  it('answers 400, 404, 409, 413, 415 and 503 as problems', async () => {
    expectProblem(await validate({}), 400);
    expectProblem(await validate({ yaml: EXAMPLE_SIGNAL, extra: 1 }), 400);
    expectProblem(await validate({ yaml: EXAMPLE_SIGNAL, tenant: 'no-such-tenant' }), 404);
    expectProblem(await validate({ yaml: EXAMPLE_SIGNAL, tenant: 'rehaklinik' }), 409);
    expectProblem(await validate({ yaml: 'x'.repeat(1024 * 1024 + 10) }), 413);
    expectProblem(await call(server.url, '/api/probe-builder/validate', { method: 'POST', body: EXAMPLE_SIGNAL, headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await validate({ yaml: EXAMPLE_SIGNAL, tenant: broken }), 503);
  });

  describe('with SIGNAL_CHECKER_CMD', () => {
    let other: TestServer;
    let scripts: { dir: string; remove: () => void };
    const start = async (command: string): Promise<TestServer> =>
      startTestServer({ env: { SIGNAL_CHECKER_CMD: command, SIGNAL_TOOL_TIMEOUT_MS: '1500' } });
    before(() => {
      scripts = tempDir('ads-signal-scripts-');
    });
    afterEach(async () => other?.close());
    after(() => scripts.remove());

    it('runs the configured command with the file path and answers what it prints', async () => {
      const command = scriptCommand(scripts.dir, 'checker.cjs', `
        const text = require('node:fs').readFileSync(process.argv[2], 'utf8');
        const ok = text.includes('probe_unbilled_cases');
        process.stdout.write(JSON.stringify({ valid: ok, errors: ok ? [] : [{ message: 'custom: nope', path: null, line: null }] }));
        process.exitCode = ok ? 0 : 1;`);
      other = await start(command);
      expect((await validate({ yaml: EXAMPLE_SIGNAL }, other.url)).body).to.deep.equal({ valid: true, errors: [] });
      expect((await validate({ yaml: 'x: 1' }, other.url)).body).to.deep.equal({ valid: false, errors: [{ message: 'custom: nope', path: null, line: null }] });
    });

    it('answers 502 when the checker hangs, crashes or prints garbage, and keeps serving', async () => {
      for (const [name, source] of [
        ['hang.cjs', 'setInterval(() => {}, 1000);'],
        ['crash.cjs', 'process.exit(7);'],
        ['garbage.cjs', 'process.stdout.write("<html>");'],
        ['wrong-shape.cjs', 'process.stdout.write(JSON.stringify({ valid: true, errors: [{ message: 1 }] }));'],
      ] as const) {
        other = await start(scriptCommand(scripts.dir, name, source));
        // a hanging checker is ended by SIGNAL_TOOL_TIMEOUT_MS only (the test's timeout catches a server that waits on)
        const res = await validate({ yaml: EXAMPLE_SIGNAL }, other.url);
        expectProblem(res, 502);
        expect(res.body.detail, name).to.match(/the signal checker failed/);
        expect((await call(other.url, '/health')).status).to.equal(200);
        await other.close();
      }
    });
  });
});
