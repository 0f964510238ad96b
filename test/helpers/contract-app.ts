import type { AddressInfo } from 'node:net';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.js';
import { CostLimits } from '../../src/auth/cost-limits.js';
import { loadConfig } from '../../src/config.js';
import { ContractSchemas } from '../../src/contract-schemas.js';
import { ContractIndex } from '../../src/http/contract-index.js';
import { DISABLED_METRICS } from '../../src/metrics/metrics.js';
import type { HandlerMap } from '../../src/operations/contract.js';
import type { Deps } from '../../src/ports/deps.js';

/**
 * The server's app (the request's pass, the edge, every check) over a contract of the test's own and its handlers,
 * without sign-in, tenants or databases, listening on a free port: for what the edge does whatever the operations.
 */
export async function serveContract(
  document: Document,
  handlers: Record<string, (input: never) => Promise<unknown>>,
  options: { log: Logger; responseValidation: boolean },
): Promise<{ url: string; close: () => Promise<void> }> {
  const config = loadConfig({ RESPONSE_VALIDATION: options.responseValidation ? 'on' : 'off' });
  const deps = {
    config,
    log: options.log,
    buildLabel: { semver: '0.1.0', label: 'v0.1.0 2026-11-21 00:00' },
    tokens: null,
    metrics: DISABLED_METRICS,
    limits: new CostLimits({ narrativesPerMinute: 0, exportsPerCaller: 0, signalToolsPerMinute: 0, tenantFetchesPerMinute: 0 }),
  } as unknown as Deps;
  const index = await ContractIndex.build(document, new ContractSchemas(document));
  const server = createApp(deps, index, handlers as unknown as HandlerMap).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
