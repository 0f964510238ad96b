import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { manyKeys, manyKeysBody, nodesOver } from '../helpers/hostile-yaml.js';
import { bundledCommand, SignalTools } from '../../src/signals/signal-tools.js';
import { projectRoot } from '../../src/project-root.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { EXAMPLE_SIGNAL, signalYaml } from '../helpers/signals.js';

/** The request body limit of the server (1 MiB of JSON); the hostile bodies stay just under it. */
const BODY_LIMIT = 1024 * 1024;

/** POST of an already serialised JSON body: this process is the client, and serialising 1 MiB takes a while. */
function postJson(url: string, operation: string, body: string): ReturnType<typeof call> {
  return call(url, `/api/probe-builder/${operation}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
}

/**
 * What each hostile text is answered with, and whether and where it was parsed: by the size limit before any
 * parse, or by the limit it breaks after one parse in the definition parser's thread (the tools parse in processes
 * of their own), never on the server's main thread. How fast the answers and `/health` stay under such load is a
 * goal of `npm run bench -- signals` (docs/benchmarks.md), measured there.
 */
describe('hostile signal definitions (cost limits)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const signals = (): string => path.join(server.dataDir, 'afs', 'signals');
  const tools = new SignalTools(bundledCommand('checker'), bundledCommand('compiler'), projectRoot());
  /** Texts parsed in the parser's thread and tool processes started so far. */
  const work = () => ({ parses: tools.definitions.parser.parses, tools: tools.workerStarts() });

  before(async () => {
    server = await startTestServer({ signalTools: tools });
  });
  after(() => server.close());

  it('answers the 35,000-key mapping and a 1 MiB body of its kind by the size limit, parsing neither', async () => {
    const keys = manyKeys(35_000, 'probe_keys');
    expect(keys.length).to.be.within(136_000, 141_000);
    const big = manyKeysBody(BODY_LIMIT - 64, 'probe_keys').yaml;
    const requests = [['35,000 keys', keys], ['1 MiB body', big]].flatMap(([label, yaml]) =>
      (['validate', 'compile', 'save'] as const).map((operation) => ({
        label: `${operation} ${label}`,
        operation,
        body: JSON.stringify(operation === 'save' ? { probe_id: 'probe_keys', yaml } : { yaml }),
      })),
    );
    for (const { label, body } of requests.slice(3)) expect(Buffer.byteLength(body), label).to.be.within(BODY_LIMIT - 100, BODY_LIMIT);
    const before = work();
    for (const { label, operation, body } of requests) {
      const res = await postJson(server.url, operation, body);
      expectProblem(res, 400);
      expect(res.body.errors, label).to.deep.equal([{ in: 'body', name: 'yaml', message: 'must NOT have more than 16384 characters' }]);
    }
    expect(work(), 'no text was parsed, no tool started').to.deep.equal(before);
    expect(fs.existsSync(path.join(signals(), 'probe_keys.yaml'))).to.equal(false);
  });

  it('refuses texts within the size limit that break another limit (valid:false, ok:false, 400 naming it), a save after one parse in the thread', async () => {
    const duplicateLine = EXAMPLE_SIGNAL.split('\n').length;
    const cases = [
      { yaml: manyKeys(3000, 'probe_keys'), limit: 'a mapping has more than 100 keys (line 3)' },
      { yaml: nodesOver(4000, 'probe_keys'), limit: 'more than 4000 nodes (line 3)' },
      { yaml: `${signalYaml('probe_keys')}type: thesis\n`, limit: `the key "type" appears twice in one mapping (line ${duplicateLine})` },
    ];
    for (const { yaml, limit } of cases) {
      const error = { message: limit, path: null, line: Number(/line (\d+)\)$/.exec(limit)![1]) };
      const validated = await postJson(server.url, 'validate', JSON.stringify({ yaml }));
      expect(validated.body).to.deep.equal({ valid: false, errors: [error] });
      const compiled = await postJson(server.url, 'compile', JSON.stringify({ yaml }));
      expect(compiled.body).to.deep.equal({ ok: false, errors: [error] });
      const parsed = tools.definitions.parser.parses;
      const saved = await postJson(server.url, 'save', JSON.stringify({ probe_id: 'probe_keys', yaml }));
      expectProblem(saved, 400);
      expect(saved.body.errors).to.deep.equal([{ in: 'body', name: 'yaml', message: `yaml is refused: ${limit}` }]);
      expect(tools.definitions.parser.parses, `${limit}: parsed once in the thread`).to.equal(parsed + 1);
    }
    expect(fs.existsSync(path.join(signals(), 'probe_keys.yaml'))).to.equal(false);
  });

  it('lists costly files, each with the limit it breaks, parsing each unchanged file once however often it is listed, and a changed one again', async () => {
    // written into the folder as a careless operator would; which limit the costliest nesting meets is pinned by
    // the parser's own test, on a clock that holds its time limit still
    fs.writeFileSync(path.join(signals(), 'probe_costly_keys.yaml'), manyKeys(35_000, 'probe_costly_keys'));
    fs.writeFileSync(path.join(signals(), 'probe_costly_nodes.yaml'), nodesOver(4000, 'probe_costly_nodes'));
    const list = async (): Promise<Map<string, { name: string | null; error: string | null }>> => {
      const res = await call(server.url, '/api/probe-builder/list?tenant=kantonsspital');
      expect(res.status).to.equal(200);
      return new Map((res.body.probes as { probe_id: string; name: string | null; error: string | null }[]).map((p) => [p.probe_id, p]));
    };
    const before = tools.definitions.parser.parses;
    const first = await list();
    expect(first.get('probe_costly_keys')).to.deep.include({ name: null, error: 'the file is larger than 65536 bytes' });
    expect(first.get('probe_costly_nodes')).to.deep.include({ name: null, error: 'more than 4000 nodes (line 3)' });
    expect(first.get('probe_unbilled_cases')).to.deep.include({ error: null });
    // every file within the size limit is parsed once (the one over it is refused unread)
    const parsed = tools.definitions.parser.parses;
    expect(parsed - before).to.equal(first.size - 1);
    for (let round = 0; round < 3; round++) expect(await list()).to.deep.equal(first);
    expect(tools.definitions.parser.parses, 'unchanged files are not parsed again').to.equal(parsed);
    fs.writeFileSync(path.join(signals(), 'probe_costly_nodes.yaml'), signalYaml('probe_costly_nodes'));
    expect((await list()).get('probe_costly_nodes')).to.deep.include({ error: null });
    expect(tools.definitions.parser.parses).to.equal(parsed + 1);
  });
});
