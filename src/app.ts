import Koa from 'koa';
import { handlers } from '../handlers/index.js';
import type { Deps } from './ports.js';
import { auditRefusal, serveOperations } from './http/adapter.js';
import { auditTrail } from './http/audit.js';
import { compression } from './http/compression.js';
import { ContractIndex } from './http/contract-index.js';
import { crossSiteGuard } from './http/cross-site.js';
import { forwardedClient } from './http/forwarded.js';
import { hostCheck, hostGuard } from './http/host-guard.js';
import { problemAnswer } from './http/problem.js';
import { problemCheck } from './http/problem-check.js';
import { parseQueryOnce } from './http/query.js';
import { cors, requestContext } from './http/request-context.js';
import { requestPass, type Admission } from './http/request-pass.js';
import { requestSpanNaming } from './http/request-span.js';
import { isTracing } from './telemetry/tracing.js';

/**
 * Builds the Koa app over `deps` (no listening: tests and main.ts decide where it serves). `index`: the contract
 * index of `deps.contract`, when the caller built it already to hand its validators to domain code too.
 */
export async function createApp(deps: Deps, index?: ContractIndex): Promise<Koa> {
  // the contract read once: every step below takes what it needs of an operation from here
  index ??= await ContractIndex.build(deps.contract.document);
  const problems = problemCheck(index, deps.config.responseValidation);
  const signIn = deps.tokens !== null;
  const refused = auditRefusal(index, signIn);
  const admissions: Admission[] = [];
  // Koa's own proxy mode stays off: it would believe the leftmost X-Forwarded-For entry, which any client writes.
  if (deps.config.trustProxy !== null) admissions.push(forwardedClient(deps.config.trustProxy));
  admissions.push(hostGuard(hostCheck(deps.config.allowedHosts, signIn), refused));
  admissions.push(cors(deps.config.corsOrigins));
  // with sign-in a page cannot make the browser send the token: only a desk without it needs this
  if (!signIn) admissions.push(crossSiteGuard(index, deps.config.corsOrigins, refused));
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  parseQueryOnce(app);
  app.use(
    requestPass({
      context: requestContext(deps.log, deps.buildLabel.label, deps.metrics),
      span: isTracing() ? requestSpanNaming(index) : null,
      admissions,
      serve: serveOperations(index, handlers, deps, problems),
      answerError: problemAnswer(problems),
      compress: compression(),
      audit: auditTrail(deps.log),
    }),
  );
  return app;
}
