import type { OpenAPIRouter, Operation, Request } from 'openapi-backend';

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
