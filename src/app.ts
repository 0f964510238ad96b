import Koa from 'koa';
import { handlers as operationHandlers } from '../handlers/index.js';
import type { HandlerMap } from './operations/contract.js';
import type { Deps } from './ports/deps.js';
import { auditTrail } from './http/request-outcome.js';
import { changePublisher } from './http/change-events.js';
import { compression } from './http/compression.js';
import type { ContractIndex } from './http/contract-index.js';
import { cors } from './http/guards.js';
import { crossSiteGuard } from './http/guards.js';
import { hostCheck, hostGuard } from './http/guards.js';
import { problemAnswer } from './http/problem-answer.js';
import { problemCheck } from './http/problem-answer.js';
import { parseQueryOnce } from './http/request-target.js';
import { requestLog } from './http/request-outcome.js';
import { requestPass, type Guard } from './http/request-pass.js';
import { requestRecords } from './http/request-record.js';
import { nameRequestSpan } from './http/request-outcome.js';
import { operationServer } from './http/serve-operation.js';
import { isTracing } from './tracing.js';

/**
 * Builds the Koa app over `deps` and the contract's `index`, serving each operation with its handler of `handlers`
 * (no listening: tests and main.ts decide where it serves).
 */
export function createApp(deps: Deps, index: ContractIndex, handlers: HandlerMap = operationHandlers): Koa {
  const problems = problemCheck(index, deps.config.responseValidation);
  const signIn = deps.tokens !== null;
  const guards: Guard[] = [hostGuard(hostCheck(deps.config.allowedHosts, signIn)), cors(deps.config.corsOrigins)];
  // with sign-in a page cannot make the browser send the token: only a desk without it needs this
  if (!signIn) guards.push(crossSiteGuard(deps.config.corsOrigins));
  const app = new Koa();
  // Koa's own proxy mode stays off: it would believe the leftmost X-Forwarded-For entry, which any client writes
  // (the record takes the client a trusted proxy vouched for: src/http/forwarded.ts).
  app.proxy = false;
  app.silent = true;
  parseQueryOnce(app);
  app.use(
    requestPass({
      begin: requestRecords(index, deps.log, deps.buildLabel.label, deps.config.trustProxy),
      guards,
      serve: operationServer(index, handlers, deps),
      answerError: problemAnswer(problems),
      compress: compression(),
      end: [...(isTracing() ? [nameRequestSpan] : []), auditTrail(deps.log, signIn), changePublisher(deps.events, Date.now), requestLog(deps.log, deps.metrics)],
    }),
  );
  return app;
}
