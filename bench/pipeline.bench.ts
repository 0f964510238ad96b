// `npm run bench -- pipeline`: openapi-backend's request pipeline against the compiled replacements the server
// uses (src/http/route-matcher.ts, request-parser.ts, request-validator.ts, matched-request.ts), function by
// function and whole, in one process, side by side: rounds alternate between the two, and the medians are
// compared. Writes its section of docs/benchmarks.md.
import type { OpenAPIBackend, Request } from 'openapi-backend';
import { loadContractDocument } from '../src/contract-document.js';
import { createContractBackend } from '../src/http/adapter.js';
import { matchedRequestHandler } from '../src/http/matched-request.js';
import { compiledValidateRequest } from '../src/http/request-validator.js';
import { contractOperations, exampleRequest } from '../test/helpers/contract.js';
import { writeBenchSection } from './report.js';
import { fmt, median } from './stats.js';

const ROUNDS = 7;
const PASSES_PER_ROUND = 40;

/** µs per request of `work` over `requests`, median of the rounds, and the two sides' rounds interleaved. */
async function sideBySide(requests: readonly Request[], library: (req: Request) => unknown, ours: (req: Request) => unknown): Promise<{ library: number; ours: number }> {
  const rounds = { library: [] as number[], ours: [] as number[] };
  const run = async (side: 'library' | 'ours', work: (req: Request) => unknown): Promise<void> => {
    const started = process.hrtime.bigint();
    for (let pass = 0; pass < PASSES_PER_ROUND; pass += 1) for (const req of requests) await work(req);
    rounds[side].push(Number(process.hrtime.bigint() - started) / 1000 / (PASSES_PER_ROUND * requests.length));
  };
  // one warm-up round each, not counted
  await run('library', library);
  await run('ours', ours);
  rounds.library.length = 0;
  rounds.ours.length = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    await run('library', library);
    await run('ours', ours);
  }
  return { library: median(rounds.library), ours: median(rounds.ours) };
}

function registerNoOps(api: OpenAPIBackend): void {
  for (const op of api.router.getOperations()) api.register(op.operationId as string, () => 'ok');
  for (const hook of ['validationFail', 'unauthorizedHandler', 'notFound', 'methodNotAllowed']) api.register(hook, () => hook);
  api.registerSecurityHandler('bearerAuth', () => true);
}

export async function run(): Promise<void> {
  const document = loadContractDocument(process.cwd()).document;
  const library = await createContractBackend(document, false);
  const ours = await createContractBackend(document);
  registerNoOps(library);
  registerNoOps(ours);
  const matched = matchedRequestHandler(ours);
  const validate = compiledValidateRequest(ours);
  // every operation's example, as the adapter hands it over (query as an object, JSON body parsed)
  const requests = contractOperations().map((op) => exampleRequest(op) as Request);
  const routed = requests.map((req) => ({ req, library: library.router.matchOperation(req)!, ours: ours.router.matchOperation(req)! }));
  const byRequest = new Map(routed.map((r) => [r.req, r]));

  const rows: [string, string, { library: number; ours: number }][] = [
    ['`matchOperation`', '`src/http/route-matcher.ts`', await sideBySide(requests, (req) => library.router.matchOperation(req), (req) => ours.router.matchOperation(req))],
    [
      '`parseRequest` (with the operation)',
      '`src/http/request-parser.ts`',
      await sideBySide(requests, (req) => library.router.parseRequest(req, byRequest.get(req)!.library), (req) => ours.router.parseRequest(req, byRequest.get(req)!.ours)),
    ],
    [
      '`validateRequest`',
      '`src/http/request-validator.ts`',
      await sideBySide(requests, (req) => library.validator.validateRequest(req, byRequest.get(req)!.library), (req) => validate(req, byRequest.get(req)!.ours)),
    ],
    [
      '`handleRequest` (routing, security, validation, coercion, handler)',
      '`matchOperation` then `src/http/matched-request.ts`',
      await sideBySide(
        requests,
        (req) => library.handleRequest(req),
        (req) => matched.handle(req, ours.router.matchOperation(req)!),
      ),
    ],
  ];
  const table = [
    '| openapi-backend function | replaced by | library µs/request | ours µs/request | ratio |',
    '|---|---|---|---|---|',
    ...rows.map(([fn, by, r]) => `| ${fn} | ${by} | ${fmt(r.library, 2)} | ${fmt(r.ours, 2)} | ${fmt(r.ours / r.library, 2)} |`),
  ];
  for (const line of table) console.log(line);
  writeBenchSection(
    'pipeline',
    `## Request pipeline: openapi-backend and its compiled replacements

Each function of openapi-backend the server replaces, against the library's own, on the example request of every
operation of the contract (${requests.length} requests), in one process: ${ROUNDS} rounds of ${PASSES_PER_ROUND} passes each,
alternating between the two, medians per request. A no-op handler answers; the HTTP server and Koa are not
measured. Each replacement is compared with the library in \`test/unit/\` (see docs/dependencies.md).

${table.join('\n')}`,
  );
}
