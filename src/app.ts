import Koa from 'koa';
import { handlers } from '../handlers/index.js';
import type { Deps } from './deps.js';
import { contractMiddleware, createContractBackend } from './http/adapter.js';
import { auditTrail } from './http/audit.js';
import { problemMiddleware } from './http/problem.js';
import { cors, requestContext } from './http/request-context.js';

/** Builds the Koa app over `deps` (no listening: tests and main.ts decide where it serves). */
export async function createApp(deps: Deps): Promise<Koa> {
  const api = await createContractBackend(deps.contract.document);
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(requestContext(deps.log, deps.buildLabel.label, deps.metrics));
  app.use(auditTrail(deps.log));
  app.use(problemMiddleware());
  app.use(cors(deps.config.corsOrigins));
  app.use(contractMiddleware(api, handlers, deps));
  return app;
}
