import type { Context, OpenAPIBackend, Operation, Request } from 'openapi-backend';
import { compiledValidateRequest, type OperationFacts } from './request-validator.js';

/** Hooks of openapi-backend's handleRequest that handleMatched does not run: registering one is refused. */
const HOOKS_NOT_RUN = ['preRoutingHandler', 'postRoutingHandler', 'unauthorizedHandler', 'postSecurityHandler', 'preOperationHandler', 'postResponseHandler', '400', '401', '501', 'notImplemented'];

/**
 * openapi-backend's handleRequest for a request already routed and already authorized (the adapter judges the
 * contract's `security` once, before the body is read: src/http/access.ts), with the library's remaining steps in
 * its order: validation (`validationFail` on errors), parameters coerced, then the operation's handler (an
 * operation without one goes to the library's handleRequest, which answers for it). It skips routing the request
 * again, parsing it twice more and its promise chains: see docs/dependencies.md for the measured gain, and
 * test/unit/matched-request.test.ts, which runs the library's handleRequest beside it on every contract example
 * and variants of them. The library's other hooks are not run, so registering one is refused (`check`).
 */
export function matchedRequestHandler(api: OpenAPIBackend, factsOf?: (operation: Operation) => OperationFacts): {
  handle(request: Request, operation: Operation, ...handlerArgs: unknown[]): Promise<unknown>;
  /** Throws when a handler is registered that handle() would skip; call it after registering handlers. */
  check(): void;
} {
  const validateRequest = compiledValidateRequest(api, factsOf);
  return {
    check() {
      const skipped = [...HOOKS_NOT_RUN.filter((name) => api.handlers[name] !== undefined), ...Object.keys(api.securityHandlers).map((scheme) => `security handler ${scheme}`)];
      if (skipped.length > 0) throw new Error(`handleMatched does not run openapi-backend's ${skipped.join(', ')}: handle those requests with handleRequest`);
    },
    async handle(request, operation, ...handlerArgs) {
      // the request as parsed with its operation, made only when a handler reads it (ours do not: a parse saved)
      let parsed: Context['request'] | undefined;
      const context = {
        api,
        operation,
        get request(): Context['request'] {
          parsed ??= api.router.parseRequest(request, operation);
          return parsed;
        },
        set request(value: Context['request']) {
          parsed = value;
        },
      } as Context;
      context.validation = validateRequest(request, operation);
      if (context.validation.errors) {
        const validationFail = api.handlers['validationFail'];
        if (validationFail === undefined) throw new Error(`400-validationFail: ${String(operation.operationId)} request failed validation and no validationFail handler is registered`);
        return validationFail(context, ...handlerArgs);
      }
      if (api.validator.coerceTypes) context.request = api.router.parseRequest(context.validation.coerced, operation);
      const handler = api.handlers[operation.operationId as string];
      // an operation without a handler gets what openapi-backend answers for it
      if (handler === undefined) return api.handleRequest(request, ...handlerArgs);
      return handler(context, ...handlerArgs);
    },
  };
}
