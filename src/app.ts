import Koa from 'koa';
import { handlers } from '../handlers/index.js';
import type { Deps } from './ports.js';
import { auditRefusal, contractMiddleware } from './http/adapter.js';
import { auditTrail } from './http/audit.js';
import { compression } from './http/compression.js';
import { ContractIndex } from './http/contract-index.js';
import { crossSiteGuard } from './http/cross-site.js';
import { forwardedClient } from './http/forwarded.js';
import { hostCheck, hostGuard } from './http/host-guard.js';
import { problemMiddleware } from './http/problem.js';
import { problemCheck } from './http/problem-check.js';
import { cors, requestContext } from './http/request-context.js';
import { requestSpanNaming } from './http/request-span.js';
import { isTracing } from './telemetry/tracing.js';

/**
 * Builds the Koa app over `deps` (no listening: tests and main.ts decide where it serves). `index`: the contract
 * index of `deps.contract`, when the caller built it already to hand its validators to domain code too.
 */
export async function createApp(deps: Deps, index?: ContractIndex): Promise<Koa> {
  // the contract read once: every module below takes what it needs of an operation from here
  index ??= await ContractIndex.build(deps.contract.document);
  const problems = problemCheck(index, deps.config.responseValidation);
  const signIn = deps.tokens !== null;
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(requestContext(deps.log, deps.buildLabel.label, deps.metrics));
  // Koa's own proxy mode stays off: it would believe the leftmost X-Forwarded-For entry, which any client writes.
  if (deps.config.trustProxy !== null) app.use(forwardedClient(deps.config.trustProxy));
  if (isTracing()) app.use(requestSpanNaming(index));
  app.use(auditTrail(deps.log));
  app.use(compression());
  app.use(problemMiddleware(problems));
  app.use(hostGuard(hostCheck(deps.config.allowedHosts, signIn), auditRefusal(index, signIn)));
  app.use(cors(deps.config.corsOrigins));
  // with sign-in a page cannot make the browser send the token: only a desk without it needs this
  if (!signIn) app.use(crossSiteGuard(index, deps.config.corsOrigins, auditRefusal(index, signIn)));
  app.use(contractMiddleware(index, handlers, deps, problems));
  return app;
}
