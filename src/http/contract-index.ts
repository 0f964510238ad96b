import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation, type OpenAPIRouter, type Request } from 'openapi-backend';
import type { ContractSchemas } from '../contract-schemas.js';
import { accessRules, type AccessRule } from './access.js';
import { deprecationsOf, type OperationNotices } from './deprecation.js';
import { compiledParseRequest, operationFactsOf, parseFactsOf, type OperationFacts, type ParseFacts } from './request-validation.js';

/** A declared response of an operation: its media types and, for a problem, the component its body must fit. */
export interface DeclaredResponse {
  readonly mediaTypes: readonly string[];
  /** It is declared with `application/problem+json`. */
  readonly problem: boolean;
  /** The component its problem body must fit, when it names one. */
  readonly problemSchema: string | undefined;
}

/** What the server knows of one operation, worked out from the contract once at start. */
export interface IndexedOperation {
  readonly operationId: string;
  /** The path template (`/api/db-status/{tenant}`): a span's `http.route`. */
  readonly route: string;
  /** openapi-backend's operation (references resolved, path-level parameters merged). */
  readonly operation: Operation;
  /** Who may call it, whether it is audited, what limit it counts against. */
  readonly rule: AccessRule;
  /** Its deprecation and that of its parameters; null when nothing of it is deprecated. */
  readonly deprecation: OperationNotices | null;
  /** Media types its request body may have; null when it takes no body. */
  readonly bodyMediaTypes: readonly string[] | null;
  /** Declared responses by status (`'200'`, `'default'`). */
  readonly responses: Readonly<Record<string, DeclaredResponse>>;
  /** What parsing and validating a request of it needs (its query parameters, its path pattern). */
  readonly parse: ParseFacts;
  readonly validate: OperationFacts;
}

const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/**
 * The contract read once: every operation with its access rule, declared responses and problems, deprecation,
 * route and the facts its parsing and validation need; and the openapi-backend instance whose routing and parsing
 * use them. Every module of the edge that needs the contract reads it here, so that a contract that breaks a rule
 * is refused at start, naming every break.
 */
export class ContractIndex {
  readonly #operations: ReadonlyMap<string, IndexedOperation>;

  private constructor(
    readonly api: OpenAPIBackend,
    operations: ReadonlyMap<string, IndexedOperation>,
    /** The component schemas, for the checks of problem bodies. */
    readonly schemas: ContractSchemas,
  ) {
    this.#operations = operations;
  }

  /** Reads `document` (already checked by redocly lint in CI; the rules of this server are checked here). */
  static async build(document: Document, schemas: ContractSchemas): Promise<ContractIndex> {
    const api = await createContractBackend(document, false);
    const rules = accessRules(document as Parameters<typeof accessRules>[0]);
    const deprecations = deprecationsOf(document);
    const operations = new Map<string, IndexedOperation>();
    for (const operation of api.router.getOperations()) {
      const operationId = operation.operationId as string;
      const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
      operations.set(operationId, {
        operationId,
        route: operation.path,
        operation,
        rule: rules.get(operationId) as AccessRule,
        deprecation: deprecations.get(operationId) ?? null,
        bodyMediaTypes: content === undefined ? null : Object.keys(content),
        responses: declaredResponses(document, operation),
        parse: parseFactsOf(operation),
        validate: operationFactsOf(operation),
      });
    }
    compileRouting(api, (operation) => (operations.get(operation.operationId as string) as IndexedOperation).parse);
    return new ContractIndex(api, operations, schemas);
  }

  /** Every operation, by operationId. */
  get operations(): ReadonlyMap<string, IndexedOperation> {
    return this.#operations;
  }

  /** The operation `operationId`; throws for one the contract lacks (a programming error). */
  operation(operationId: string): IndexedOperation {
    const found = this.#operations.get(operationId);
    if (found === undefined) throw new Error(`openapi.yaml has no operation ${operationId}`);
    return found;
  }

  /** The operation a request's method and path match, or null (`allowedMethods` tells a 404 from a 405). */
  match(method: string, path: string): IndexedOperation | null {
    const operation = this.api.router.matchOperation({ method, path, headers: {} });
    return operation === undefined ? null : (this.#operations.get(operation.operationId as string) ?? null);
  }

  /** The methods some operation takes on `path`, in upper case; none for a path no operation has. */
  allowedMethods(path: string): string[] {
    return METHODS.filter((method) => this.api.router.matchOperation({ method, path, headers: {} }) !== undefined).map((m) => m.toUpperCase());
  }
}

/**
 * Builds the openapi-backend instance: strict routing, coerced parameters, formats, discriminators, with the
 * library's routing and parsing compiled (`compileRouting`); `compiled: false` keeps the library's own, for the
 * tests and the bench that compare the two. The server builds it through `ContractIndex.build`.
 */
export async function createContractBackend(definition: Document, compiled = true): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: structuredClone(definition),
    strict: true,
    // quick: skip re-validating the document at every start (redocly lint does that in CI) and compile each
    // operation's validators on its first request instead of all up front: start-up 2 s -> well under 1 s.
    quick: true,
    validate: true,
    coerceTypes: true,
    ajvOpts: { strict: false, allErrors: false },
    customizeAjv: (ajv) => {
      addFormats.default(ajv, { mode: 'full' });
      return ajv;
    },
  });
  await api.init();
  if (!compiled) return api;
  const facts = new Map(api.router.getOperations().map((operation) => [operation.operationId, parseFactsOf(operation)]));
  compileRouting(api, (operation) => facts.get(operation.operationId) as ParseFacts);
  return api;
}

/**
 * Replaces openapi-backend's routing and parsing, which redo per request what never changes once the contract is
 * loaded (flattening the document into its operations on every routing call, a RegExp per operation to route a
 * templated path, each path's parameter pattern compiled again on every parse), with compiled equivalents.
 */
function compileRouting(api: OpenAPIBackend, parseFacts: (operation: Operation) => ParseFacts): void {
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  api.router.matchOperation = compiledMatchOperation(api.router, operations) as OpenAPIBackend['router']['matchOperation'];
  api.router.parseRequest = compiledParseRequest(api.router, parseFacts) as OpenAPIBackend['router']['parseRequest'];
}

type RawResponse = { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> };

/** The operation's responses as `document` declares them (references to `#/components/responses/…` followed). */
function declaredResponses(document: Document, operation: Operation): Record<string, DeclaredResponse> {
  const item = (document.paths?.[operation.path] ?? {}) as Record<string, { responses?: Record<string, RawResponse> }>;
  const raw = item[operation.method]?.responses ?? {};
  const named = (document.components?.responses ?? {}) as Record<string, RawResponse>;
  const declared: Record<string, DeclaredResponse> = {};
  for (const [status, given] of Object.entries(raw)) {
    const response = given.$ref === undefined ? given : named[given.$ref.replace('#/components/responses/', '')];
    const content = response?.content ?? {};
    const problem = content[PROBLEM_MEDIA_TYPE];
    declared[status] = { mediaTypes: Object.keys(content), problem: problem !== undefined, problemSchema: problem?.schema === undefined ? undefined : schemaName(problem.schema) };
  }
  return declared;
}

/** The component name of a problem schema (every problem response refers to one). */
function schemaName(schema: { $ref?: string }): string {
  const ref = schema.$ref;
  if (ref === undefined || !ref.startsWith('#/components/schemas/')) throw new Error('a problem response schema must be a $ref to #/components/schemas/…');
  return ref.slice('#/components/schemas/'.length);
}

/** `{name}` in a path template. */
const TEMPLATE_PART = /\{[^}]+\}/g;
const escapeRegExp = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Candidate {
  operation: Operation;
  pattern: RegExp;
  /** Length of the path without its templates: the more literal, the more specific. */
  specificity: number;
}

/**
 * openapi-backend's `matchOperation` with the path patterns compiled once: the library builds a RegExp for
 * every operation's path on every request to a templated path (44 per request here). Same answers, same
 * errors ('404-notFound…', '405-methodNotAllowed…', which handleRequest turns into its notFound and
 * methodNotAllowed handlers): an exact path with the method first, else the templated paths that match,
 * most specific first, the first with the method.
 */
export function compiledMatchOperation(router: OpenAPIRouter, operations: readonly Operation[]): (req: Request, strict?: boolean) => Operation | undefined {
  const candidates: Candidate[] = operations.map((operation) => ({
    operation,
    pattern: new RegExp(`^${operation.path.replace(TEMPLATE_PART, '\0').split('\0').map(escapeRegExp).join('[^/]+')}$`),
    specificity: operation.path.replace(/\{.*?\}/g, '').length,
  }));
  // stable sort: among equally specific paths the document order stays, as with lodash's orderBy
  const bySpecificity = [...candidates].sort((a, b) => b.specificity - a.specificity);
  const fail = (strict: boolean | undefined, message: string): undefined => {
    if (strict === true) throw Error(message);
    return undefined;
  };
  // private in the typings, public in the code: the apiRoot check the library's own matchOperation makes. Should
  // a release rename it, the server refuses to start rather than route differently (test/unit/route-matcher.test.ts
  // compares the two with and without an apiRoot).
  const isUnderApiRoot = (router as unknown as { isUnderApiRoot?: (path: string) => boolean }).isUnderApiRoot;
  if (typeof isUnderApiRoot !== 'function') throw new Error("openapi-backend's router has no isUnderApiRoot: compiledMatchOperation must follow the library's routing again");
  const underApiRoot = (path: string): boolean => isUnderApiRoot.call(router, path);
  return (request, strict) => {
    const req = router.normalizeRequest(request);
    if (!underApiRoot(req.path)) return fail(strict, '404-notFound: no route matches request');
    const path = router.normalizePath(req.path);
    const exact = candidates.find(({ operation }) => operation.path === path && operation.method === req.method);
    if (exact !== undefined) return exact.operation;
    const matching = bySpecificity.filter(({ pattern }) => pattern.test(path));
    if (matching.length === 0) return fail(strict, '404-notFound: no route matches request');
    const match = matching.find(({ operation }) => operation.method === req.method);
    return match === undefined ? fail(strict, '405-methodNotAllowed: this method is not registered for the route') : match.operation;
  };
}
