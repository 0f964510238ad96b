import Database from 'better-sqlite3';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { SIGNALS } from '../../src/demo/signals.js';
import { call, expectProblem } from '../helpers/http.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { ALIAS_BOMB, EXAMPLE_SIGNAL, deepFlow, scriptCommand, writeBrokenTenant } from '../helpers/signals.js';

const DEMO_TENANTS = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];
const COLUMNS = 'probe_id, entity_type, entity_id, time_bucket, severity, money_at_risk, evidence';

describe('POST /api/probe-builder/compile', function () {
  this.timeout(60000);
  let server: TestServer;
  let broken: string;
  const data = { dir: '', remove: (): void => undefined };
  const compile = (body: unknown, base = server.url): ReturnType<typeof call> => call(base, '/api/probe-builder/compile', { method: 'POST', json: body });
  const klsOf = (tenant: string): string => path.join(server.dataDir, 'kls', ...tenant.split('.'), 'kls.sqlite');

  before(async () => {
    Object.assign(data, tempDir('ads-signal-compile-'));
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    broken = writeBrokenTenant(data.dir);
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('compiles each demo signal to SQL that yields exactly its findings on every demo tenant', async () => {
    for (const signal of SIGNALS) {
      const yaml = fs.readFileSync(path.join(server.dataDir, 'afs', 'signals', `${signal.probe_id}.yaml`), 'utf8');
      for (const tenant of DEMO_TENANTS) {
        const res = await compile({ yaml, tenant });
        expect(res.status).to.equal(200);
        expect(res.body.ok, JSON.stringify(res.body)).to.equal(true);
        const db = new Database(klsOf(tenant), { readonly: true, fileMustExist: true });
        try {
          const statement = db.prepare(res.body.sql);
          expect(statement.columns().map((column) => column.name)).to.deep.equal(COLUMNS.split(', '));
          const compiled = statement.raw().all() as unknown[][];
          const expected = db.prepare(`SELECT ${COLUMNS} FROM findings WHERE probe_id = ? ORDER BY finding_id`).raw().all(signal.probe_id) as unknown[][];
          expect(expected.length, `${signal.probe_id} on ${tenant} has findings`).to.be.greaterThan(0);
          const canonical = (rows: unknown[][]): string[] => rows.map((row) => JSON.stringify(row)).sort();
          expect(canonical(compiled), `${signal.probe_id} on ${tenant}`).to.deep.equal(canonical(expected));
          const ids = compiled.map((row) => String(row[2]));
          expect(ids).to.deep.equal([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
        } finally {
          db.close();
        }
      }
    }
  });

  it('compiles without a tenant; a thesis or an invalid signal is ok:false with errors', async () => {
    const res = await compile({ yaml: EXAMPLE_SIGNAL });
    expect(res.body.ok).to.equal(true);
    expect(res.body.sql).to.match(/^SELECT 'probe_unbilled_cases' AS "probe_id", 'Case' AS "entity_type"/);
    const thesis = await compile({ yaml: fs.readFileSync(path.join(server.dataDir, 'afs', 'theses', 'hyp_revenue_leakage.yaml'), 'utf8') });
    expect(thesis.status).to.equal(200);
    expect(thesis.body).to.deep.equal({ ok: false, errors: [{ message: 'type: only signals can be compiled, this definition is a thesis (line 4)', path: 'type', line: 4 }] });
    const invalid = await compile({ yaml: EXAMPLE_SIGNAL.replace('entity_id: case_id', 'entity_id: "case_id\\" FROM meta --"') });
    expect(invalid.body.ok).to.equal(false);
    expect(invalid.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['contract.entity_id']);
  });

  it('with a tenant, a column missing from its Gold table is ok:false naming the path and line', async () => {
    const res = await compile({ yaml: EXAMPLE_SIGNAL.replace('[case_id, discharged_on, expected_amount]', '[case_id, secret_column]'), tenant: 'kantonsspital' });
    expect(res.body).to.deep.equal({
      ok: false,
      errors: [{ message: 'contract.evidence[1]: column "secret_column" does not exist in gold_cases of tenant ost.kantonsspital (line 20)', path: 'contract.evidence[1]', line: 20 }],
    });
  });

  it('keeps hostile values inside literals: the SQL runs and matches nothing', async () => {
    const yaml = EXAMPLE_SIGNAL.replace('value: [closed, discharged]', `value: ["closed') OR 1=1 --", "x'; DROP TABLE findings; --"]`);
    const res = await compile({ yaml, tenant: 'kantonsspital' });
    expect(res.body.ok).to.equal(true);
    const db = new Database(klsOf('ost.kantonsspital'), { readonly: true });
    try {
      expect(db.prepare(res.body.sql).all()).to.deep.equal([]);
    } finally {
      db.close();
    }
  });

  it('rejects alias bombs and deep nesting by their limits, as ok:false', async () => {
    for (const [yaml, reason] of [[ALIAS_BOMB, /aliases/], [deepFlow(8_000), /nesting/]] as const) {
      const res = await compile({ yaml });
      expect(res.body.ok).to.equal(false);
      expect(res.body.errors[0].message).to.match(reason);
    }
  });

  it('answers 400, 404, 409, 413, 415 and 503 as problems', async () => {
    expectProblem(await compile({ yaml: EXAMPLE_SIGNAL, tenant: broken }), 503);
    expectProblem(await compile({ yaml: '' }), 400);
    expectProblem(await compile({ yaml: EXAMPLE_SIGNAL, tenant: 'no-such-tenant' }), 404);
    expectProblem(await compile({ yaml: EXAMPLE_SIGNAL, tenant: 'rehaklinik' }), 409);
    expectProblem(await compile({ yaml: 'x'.repeat(1024 * 1024 + 10) }), 413);
    expectProblem(await call(server.url, '/api/probe-builder/compile', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('with SIGNAL_COMPILER_CMD, feeds the YAML on standard input; a crash or time-out is 502', async () => {
    const scripts = tempDir('ads-signal-compiler-');
    try {
      const echo = scriptCommand(scripts.dir, 'echo.cjs', `
        let text = ''; process.stdin.on('data', (c) => (text += c)).on('end', () => {
          process.stdout.write(JSON.stringify({ ok: true, sql: 'SELECT ' + text.length }));
        });`);
      let other = await startTestServer({ env: { SIGNAL_COMPILER_CMD: echo } });
      try {
        expect((await compile({ yaml: 'abc' }, other.url)).body).to.deep.equal({ ok: true, sql: 'SELECT 3' });
      } finally {
        await other.close();
      }
      other = await startTestServer({ env: { SIGNAL_COMPILER_CMD: scriptCommand(scripts.dir, 'hang.cjs', 'setInterval(() => {}, 1000);'), SIGNAL_TOOL_TIMEOUT_MS: '500' } });
      try {
        const res = await compile({ yaml: EXAMPLE_SIGNAL }, other.url);
        expectProblem(res, 502);
        expect(res.body.detail).to.match(/the signal compiler failed: .*500 ms/);
      } finally {
        await other.close();
      }
    } finally {
      scripts.remove();
    }
  });
});
