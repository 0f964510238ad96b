import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { buildKls } from '../helpers/kls-builder.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { ALIAS_BOMB, EXAMPLE_SIGNAL, signalYaml, writeBrokenTenant } from '../helpers/signals.js';

describe('GET /api/probe-builder/list', function () {
  this.timeout(30000);
  let server: TestServer;
  let broken: string;
  let outside: { dir: string; remove: () => void };
  const data = { dir: '', remove: (): void => undefined };

  before(async () => {
    Object.assign(data, tempDir('ads-signal-list-'));
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    broken = writeBrokenTenant(data.dir);
    const signals = path.join(data.dir, 'afs', 'signals');
    fs.writeFileSync(path.join(signals, 'probe_broken_yaml.yaml'), 'probe_id: probe_broken_yaml\ncontract: {a: [1\n');
    fs.writeFileSync(path.join(signals, 'probe_bomb.yaml'), ALIAS_BOMB);
    fs.writeFileSync(path.join(signals, 'probe_elsewhere.yaml'), signalYaml('probe_elsewhere', EXAMPLE_SIGNAL.replace('source: gold_cases', 'source: gold_unknown')));
    fs.writeFileSync(path.join(signals, 'notes.txt'), 'not a definition');
    fs.writeFileSync(path.join(signals, 'hyp_wrong_folder.yaml'), 'probe_id: hyp_wrong_folder\n');
    // symbolic links out of the definitions folder: a file, and a whole folder
    outside = tempDir('ads-signal-list-outside-');
    fs.writeFileSync(path.join(outside.dir, 'probe_outside.yaml'), signalYaml('probe_outside'));
    fs.symlinkSync(path.join(outside.dir, 'probe_outside.yaml'), path.join(signals, 'probe_linked.yaml'));
    fs.writeFileSync(path.join(outside.dir, 'diag_outside.yaml'), 'probe_id: diag_outside\ntype: verdict\nname: {en: Outside}\ncontract: {}\n');
    fs.rmSync(path.join(data.dir, 'afs', 'verdicts'), { recursive: true, force: true });
    fs.symlinkSync(outside.dir, path.join(data.dir, 'afs', 'verdicts'));
    // a tenant file without the optional gold_tables registry
    buildKls(path.join(data.dir, 'kls', 'ost', 'nogold', 'kls.sqlite'), 'nogold');
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
    outside.remove();
  });

  it('lists the four types in order with name, description, contract and applicability; a link carries an error, a linked folder is not read', async () => {
    const res = await call(server.url, '/api/probe-builder/list?tenant=ost.kantonsspital');
    expect(res.status).to.equal(200);
    const probes = res.body.probes as { probe_id: string; type: string; applicable: boolean | null; error: string | null; name: unknown; contract: any }[];
    expect(probes.map((p) => `${p.type}:${p.probe_id}`)).to.deep.equal([
      'signal:probe_bomb', 'signal:probe_broken_yaml', 'signal:probe_cost_centre_overrun', 'signal:probe_elsewhere', 'signal:probe_late_billing',
      'signal:probe_linked', 'signal:probe_material_overuse', 'signal:probe_unbilled_cases',
      'perspective:assessment_revenue_cycle', 'thesis:hyp_revenue_leakage',
    ]);
    const byId = new Map(probes.map((p) => [p.probe_id, p]));
    expect(byId.get('probe_unbilled_cases')).to.deep.include({ applicable: true, error: null });
    expect(byId.get('probe_unbilled_cases')?.contract.source).to.equal('gold_cases');
    expect(byId.get('probe_unbilled_cases')?.name).to.deep.equal({ en: 'Discharged cases not yet billed', de: 'Entlassene, noch nicht abgerechnete Fälle', fr: 'Cas sortis non encore facturés' });
    expect(byId.get('probe_elsewhere')).to.deep.include({ applicable: false, error: null });
    expect(byId.get('hyp_revenue_leakage')).to.deep.include({ applicable: null, description: null, error: null });
    for (const id of ['probe_broken_yaml', 'probe_bomb']) {
      expect(byId.get(id)).to.deep.include({ name: null, contract: null, applicable: null });
      expect(byId.get(id)?.error).to.be.a('string').and.not.equal('');
    }
    expect(byId.get('probe_bomb')?.error).to.match(/aliases/);
    expect(byId.get('probe_linked')).to.deep.equal({
      probe_id: 'probe_linked', type: 'signal', name: null, description: null, contract: null, applicable: null,
      error: 'the file is a symbolic link, which the server does not follow',
    });
  });

  it('marks every signal not applicable for a tenant file without gold_tables (it used to be a 500), and validates against it', async () => {
    const res = await call(server.url, '/api/probe-builder/list?tenant=ost.nogold');
    expect(res.status).to.equal(200);
    expect(res.body.probes.length).to.be.greaterThan(0);
    expect(res.body.probes.filter((p: { applicable?: boolean }) => p.applicable === true)).to.deep.equal([]);
    const validated = await call(server.url, '/api/probe-builder/validate', { method: 'POST', json: { yaml: EXAMPLE_SIGNAL, tenant: 'ost.nogold' } });
    expect(validated.status).to.equal(200);
    expect(validated.body.valid).to.equal(false);
  });

  it('answers 400 without tenant, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/probe-builder/list'), 400);
    expectProblem(await call(server.url, '/api/probe-builder/list?tenant=no-such-tenant'), 404);
    expectProblem(await call(server.url, '/api/probe-builder/list?tenant=rehaklinik'), 409);
  });

  it('answers 503 when the tenant file cannot be opened', async () => {
    expectProblem(await call(server.url, `/api/probe-builder/list?tenant=${broken}`), 503);
  });
});
