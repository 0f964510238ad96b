import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { contractChanges } from '../../contract/compat/gate.js';
import { listReleases, readContract, type Release } from '../../contract/compat/releases.js';
import { formatVersion } from '../../contract/compat/semver.js';
import { contractExamples, type OperationExample } from '../helpers/contract-examples.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { generatorArguments, runPackageBin } from './generator.js';

// Yesterday's client, run today: a client generated from a released contract (contract/releases/: the latest, and
// those before it that no breaking change separates from it) by the command of `npm run generate:client` calls every operation of that contract with that contract's examples against
// today's server, and each answer is judged by the released contract: a status it declares, a 2xx one, and a body
// valid against its schema. Clients ignore response members they do not know (docs/versioning.md), so the released
// schemas are read without `additionalProperties: false`: what a later version adds is allowed, nothing else is.

const ANTHROPIC_KEY = 'sk-ant-test-released-0815';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * The releases whose generated clients today's server must serve: the latest, and each one before it from which no
 * breaking change leads to the latest (after a breaking change, the clients before it may fail by design).
 */
function supportedReleases(): Release[] {
  const releases = listReleases(process.cwd());
  const supported = [releases.at(-1)!];
  for (let i = releases.length - 2; i >= 0; i--) {
    const changes = contractChanges(readContract(releases[i]!.file), readContract(releases[i + 1]!.file));
    if (changes.some((change) => change.kind === 'breaking')) break;
    supported.push(releases[i]!);
  }
  return supported;
}

/** What a generated SDK function answers (the fetch client's result). */
interface Outcome {
  data?: unknown;
  error?: unknown;
  response?: Response;
}
type SdkFunction = (options: Record<string, unknown>) => Promise<Outcome>;
type Sdk = Record<string, SdkFunction>;

/** One operation of the released contract. */
interface ReleasedOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** The released contract's operations in document order. */
function releasedOperations(doc: any): ReleasedOperation[] {
  const operations: ReleasedOperation[] = [];
  for (const item of Object.values<any>(doc.paths)) {
    for (const method of METHODS) if (item[method] !== undefined) operations.push({ operationId: item[method].operationId, responses: item[method].responses });
  }
  return operations;
}

/** `doc` with every `additionalProperties: false` left out (see above). */
function tolerant(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tolerant);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (!(key === 'additionalProperties' && value === false)) copy[key] = tolerant(value);
  return copy;
}

/**
 * Path values only the server makes (IDs of notes and notebook cells): the released contract's examples name IDs
 * that do not exist, so these come from an earlier call of the same old client, itself judged like every other.
 */
const MADE_BY_SERVER: Record<string, (call: (operationId: string, request: OperationExample) => Promise<unknown>, examples: Record<string, OperationExample>) => Promise<Record<string, unknown>>> = {
  getNote: (call, examples) => newNote(call, examples),
  addToNote: (call, examples) => newNote(call, examples),
  updateNote: (call, examples) => newNote(call, examples),
  deleteNote: (call, examples) => newNote(call, examples),
  updateNotebookCell: (call, examples) => newCell(call, examples.addNotebookCell!),
  deleteNotebookCell: (call, examples) => newCell(call, examples.addNotebookCell!),
  addDiscussionReply: (call, examples) => newCell(call, { ...examples.addNotebookCell!, body: { cell: { type: 'discussion', title: 'Unbilled cases' } } }),
};

async function newNote(call: (operationId: string, request: OperationExample) => Promise<unknown>, examples: Record<string, OperationExample>) {
  const created = (await call('createNote', examples.createNote!)) as { note: { note_id: string } };
  return { note_id: created.note.note_id };
}

async function newCell(call: (operationId: string, request: OperationExample) => Promise<unknown>, adding: OperationExample) {
  const answer = (await call('addNotebookCell', adding)) as { notebook: { cells: string } };
  const cells = JSON.parse(answer.notebook.cells) as { id: string }[];
  return { cell_id: cells.at(-1)!.id };
}

for (const release of supportedReleases()) describe(`a client generated from the released contract ${formatVersion(release.version)} (contract/releases/), run against today's server`, function () {
  this.timeout(120_000);
  let work: { dir: string; remove: () => void };
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let sdk: Sdk;
  const released = YAML.parse(fs.readFileSync(release.file, 'utf8'));

  before(async () => {
    work = tempDir('ads-released-client-');
    fs.writeFileSync(path.join(work.dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    // the examples helper reads <root>/openapi.yaml: here the released contract
    fs.copyFileSync(release.file, path.join(work.dir, 'openapi.yaml'));
    anthropic = await startFakeAnthropic(ANTHROPIC_KEY);
    server = await startTestServer({
      env: { GITHUB_API_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_MODEL: 'claude-test-model' },
    });
  });
  after(async () => {
    await server?.close();
    await anthropic?.close();
    work?.remove();
  });

  it('is generated from the released contract by the command of npm run generate:client', async () => {
    const output = path.join(work.dir, 'build', 'client');
    const run = runPackageBin('@hey-api/openapi-ts', 'bin/run.js', [...generatorArguments(output, release.file), '--no-log-file']);
    expect(run.status, `openapi-ts failed:\n${run.output}`).to.equal(0);
    sdk = (await import(pathToFileURL(path.join(output, 'index.ts')).href)) as Sdk;
    expect(Object.keys(sdk).filter((name) => typeof sdk[name] === 'function').sort()).to.deep.equal(releasedOperations(released).map((op) => op.operationId).sort());
  });

  it('calls every operation of the released contract with its example and gets answers that contract describes', async () => {
    expect(sdk, 'the client was generated').to.not.equal(undefined);
    const { createClient } = (await import(pathToFileURL(path.join(work.dir, 'build', 'client', 'client', 'index.ts')).href)) as { createClient: (config: object) => unknown };
    const client = createClient({ baseUrl: server.url });
    const judge = new OpenAPIBackend({
      definition: tolerant(released) as Document,
      quick: true,
      ajvOpts: { strict: false },
      customizeAjv: (ajv) => (addFormats.default(ajv, { mode: 'full' }), ajv),
    });
    await judge.init();
    const examples = contractExamples(work.dir);
    const operations = new Map(releasedOperations(released).map((op) => [op.operationId, op]));
    const failures: string[] = [];
    const answered = new Set<string>();

    const call = async (operationId: string, request: OperationExample): Promise<unknown> => {
      const options: Record<string, unknown> = { client };
      if (Object.keys(request.path).length > 0) options.path = request.path;
      if (Object.keys(request.query).length > 0) options.query = request.query;
      if (request.body !== undefined) options.body = request.body;
      const outcome = await sdk[operationId]!(options);
      const status = outcome.response?.status ?? 0;
      const label = `${operationId} answered ${status}`;
      answered.add(operationId);
      const declared = operations.get(operationId)!.responses[String(status)];
      if (declared === undefined) failures.push(`${label}: a status the released contract does not declare`);
      if (status < 200 || status > 299) failures.push(`${label}: ${JSON.stringify(outcome.error)}`);
      const mediaType = (outcome.response?.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const mediaTypes = Object.keys(declared?.content ?? {}).map((type) => type.split(';')[0]!.trim());
      if (mediaTypes.length > 0 && !mediaTypes.includes(mediaType)) failures.push(`${label} as ${mediaType}: the released contract declares ${mediaTypes.join(', ')}`);
      if (/json$/.test(mediaType)) {
        const body = status >= 200 && status <= 299 ? outcome.data : outcome.error;
        const { errors } = judge.validateResponse(body, operationId, status);
        for (const error of errors ?? []) failures.push(`${label}: body ${error.instancePath || '(root)'} ${error.message ?? ''} (released schema)`);
      }
      return outcome.data;
    };

    for (const operationId of operations.keys()) {
      const example = examples[operationId]!;
      const made = await MADE_BY_SERVER[operationId]?.(call, examples);
      await call(operationId, made === undefined ? example : { ...example, path: { ...example.path, ...made } });
    }
    expect(failures).to.deep.equal([]);
    expect([...operations.keys()].filter((operationId) => !answered.has(operationId)), 'operations not called').to.deep.equal([]);
  });
});
