import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createDeps, type OwnedDeps } from './deps.js';
import type { OidcTiming } from './auth/oidc.js';
import type { Logger } from './logger.js';

/** A listening server and the means to stop it gracefully. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly deps: OwnedDeps;
  /** Stops accepting, lets in-flight requests finish (at most `graceMs`), then closes the databases. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Builds deps and app, listens on config.host:config.port (0 = any free port). `oidcTiming` shortens the
 * OpenID provider's key-fetch cooldown and start deadline for tests; the server's defaults otherwise.
 */
export async function startServer(config: Config, log: Logger, oidcTiming?: OidcTiming): Promise<RunningServer> {
  const deps = await createDeps(config, log, oidcTiming);
  const app = await createApp(deps);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 5000;
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    deps,
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(timer);
        await deps.close();
      })();
      return stopping;
    },
  };
}
