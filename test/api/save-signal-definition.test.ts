import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer, storedState, type SignInServer } from '../helpers/sign-in.js';
import { projectRoot } from '../../src/project-root.js';
import { bundledCommand, SignalTools } from '../../src/signals/signal-tools.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ALIAS_BOMB, deepFlow, signalYaml } from '../helpers/signals.js';

describe('POST /api/probe-builder/save', function () {
  this.timeout(30000);
  let server: TestServer;
  const tools = new SignalTools(bundledCommand('checker'), bundledCommand('compiler'), projectRoot());
  const save = (body: unknown, query = ''): ReturnType<typeof call> => call(server.url, `/api/probe-builder/save${query}`, { method: 'POST', json: body });
  const listTree = (dir: string): string[] => fs.readdirSync(dir, { recursive: true }).map(String).sort();

  before(async () => {
    server = await startTestServer({ signalTools: tools });
  });
  after(() => server.close());

  it('writes signals/<probe_id>.yaml, then overwrites it only with force=true', async () => {
    const file = path.join(server.dataDir, 'afs', 'signals', 'probe_saved_once.yaml');
    const parser = tools.definitions.parser;
    const parsed = parser.parses;
    const res = await save({ probe_id: 'probe_saved_once', yaml: signalYaml('probe_saved_once') });
    expect(res.status).to.equal(200);
    expect(parser.parses, 'the YAML is checked in the parser\'s thread').to.equal(parsed + 1);
    expect(res.body).to.deep.equal({ saved: true, path: 'signals/probe_saved_once.yaml' });
    expect(fs.readFileSync(file, 'utf8')).to.equal(signalYaml('probe_saved_once'));
    expectProblem(await save({ probe_id: 'probe_saved_once', yaml: `${signalYaml('probe_saved_once')}# v2\n` }), 409);
    expectProblem(await save({ probe_id: 'probe_saved_once', yaml: `${signalYaml('probe_saved_once')}# v2\n` }, '?force=false'), 409);
    expect(fs.readFileSync(file, 'utf8')).to.equal(signalYaml('probe_saved_once'));
    const forced = await save({ probe_id: 'probe_saved_once', yaml: `${signalYaml('probe_saved_once')}# v2\n` }, '?force=true');
    expect(forced.status).to.equal(200);
    expect(fs.readFileSync(file, 'utf8')).to.match(/# v2\n$/);
    const loaded = await call(server.url, '/api/probe-builder/load?tenant=kantonsspital&probe_id=probe_saved_once');
    expect(loaded.body.yaml).to.match(/# v2\n$/);
  });

  it('of two concurrent saves of a new id without force, exactly one succeeds and the other is 409', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `probe_race_${round}`;
      const results = await Promise.all([1, 2].map((n) => save({ probe_id: id, yaml: `${signalYaml(id)}# writer ${n}\n` })));
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
      const winner = results.findIndex((r) => r.status === 200) + 1;
      expect(fs.readFileSync(path.join(server.dataDir, 'afs', 'signals', `${id}.yaml`), 'utf8')).to.match(new RegExp(`# writer ${winner}\\n$`));
    }
    expect(listTree(path.join(server.dataDir, 'afs', 'signals')).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);
  });

  it('answers 400 for a bad probe_id, YAML that does not parse, a different probe_id, alias bombs, deep nesting and duplicate keys', async () => {
    const before = listTree(path.join(server.dataDir, 'afs'));
    for (const probeId of ['hyp_x', 'probe_../../../tmp/x', 'probe_X', '../probe_x', 'probe_']) {
      expectProblem(await save({ probe_id: probeId, yaml: signalYaml(probeId) }), 400);
    }
    const cases = [
      { yaml: 'probe_id: probe_bad\ncontract: {a: [1\n', detail: /yaml is refused: YAML syntax/ },
      { yaml: signalYaml('probe_other'), detail: /differs/ },
      { yaml: 'type: signal\n', detail: /differs/ },
      { yaml: ALIAS_BOMB.replace('probe_bomb', 'probe_bad'), detail: /aliases/ },
      { yaml: deepFlow(8_000, 'probe_bad'), detail: /nesting is too deep/ },
      { yaml: 'probe_id: probe_bad\ntype: signal\ntype: signal\n', detail: /the key "type" appears twice in one mapping \(line 3\)/ },
    ];
    for (const { yaml, detail } of cases) {
      const res = await save({ probe_id: 'probe_bad', yaml });
      expectProblem(res, 400);
      expect(res.body.detail).to.match(detail);
    }
    expect(listTree(path.join(server.dataDir, 'afs'))).to.deep.equal(before);
  });

  it('answers 413 for a body over 1 MiB and 415 for a body that is not JSON', async () => {
    const big = await save({ probe_id: 'probe_big', yaml: `probe_id: probe_big\n# ${'x'.repeat(1024 * 1024)}\n` });
    expectProblem(big, 413);
    const text = await call(server.url, '/api/probe-builder/save', { method: 'POST', body: 'probe_id: probe_x', headers: { 'content-type': 'text/yaml' } });
    expectProblem(text, 415);
    expect(fs.existsSync(path.join(server.dataDir, 'afs', 'signals', 'probe_big.yaml'))).to.equal(false);
  });
});

describe('POST /api/probe-builder/save with sign-in', function () {
  this.timeout(30000);
  let provider: OidcProvider;
  let server: SignInServer;
  const file = (): string => path.join(server.dataDir, 'afs', 'signals', 'probe_unbilled_cases.yaml');
  const overwrite = (token: string): ReturnType<typeof call> =>
    call(server.url, '/api/probe-builder/save?force=true', {
      method: 'POST',
      headers: bearer(token),
      json: { probe_id: 'probe_unbilled_cases', yaml: `${signalYaml('probe_unbilled_cases')}# overwritten\n` },
    });

  before(async () => {
    provider = await OidcProvider.start();
    server = await startSignInServer(provider);
  });
  after(async () => {
    await server.close();
    await provider.close();
  });

  it('answers 403 to an admin whose tenants claim is not "*", and writes nothing', async () => {
    const original = fs.readFileSync(file());
    for (const [label, tenants] of [['one tenant', ['ost.kantonsspital']], ['a whole pack', ['ost.*']], ['an empty claim', []]] as const) {
      const before = storedState(server.dataDir);
      const res = await overwrite(await provider.token({ roles: ['admin'], tenants: [...tenants] }));
      expectProblem(res, 403);
      expect(res.body.detail, label).to.equal('saving a signal definition changes it for every tenant; it needs "*" in the token\'s tenants claim');
      expect(res.headers.get('www-authenticate'), label).to.equal('Bearer realm="analytics-desk", error="insufficient_scope"');
      expect(fs.readFileSync(file()).equals(original), label).to.equal(true);
      expect(storedState(server.dataDir), label).to.deep.equal(before);
    }
    const withoutClaim = await provider.token({ roles: ['admin'], tenants: undefined }, { omit: ['tenants'] });
    expectProblem(await overwrite(withoutClaim), 403);
    expect(fs.readFileSync(file()).equals(original)).to.equal(true);
  });

  it('saves for an admin with "*" in the tenants claim', async () => {
    const res = await overwrite(await provider.token({ roles: ['admin'], tenants: ['*'] }));
    expect(res.status).to.equal(200);
    expect(fs.readFileSync(file(), 'utf8')).to.match(/# overwritten\n$/);
  });
});
