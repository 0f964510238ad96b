import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { ContractIndex } from './http/contract-index.js';
import { answerClientError } from './http/client-error.js';
import type { Config } from './config.js';
import { createDeps, type DepsOptions, type OwnedDeps } from './deps.js';
import type { Logger } from './logger.js';

/** A listening server and the means to stop it gracefully. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly deps: OwnedDeps;
  /**
   * Stops in three steps: readiness answers 503 at once while everything is still served for `delayMs` (a load
   * balancer notices and sends no more); then no new connection is accepted and requests in flight, a streaming
   * export included, get at most `graceMs` to finish before their connections are closed; then the databases close.
   * Defaults: SHUTDOWN_DELAY_MS and SHUTDOWN_TIMEOUT_MS.
   */
  stop(graceMs?: number, delayMs?: number): Promise<void>;
}

/** What a test sets in place of the server's own timing. */
export interface ServerTiming {
  /** How long an idle keep-alive connection stays open; default 5000. */
  keepAliveTimeoutMs?: number;
  /** The wait of the shutdown delay; default a timer of `ms`. */
  wait?: (ms: number) => Promise<void>;
}

const waitFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds deps and app, listens on config.host:config.port (0 = any free port). `options` replace parts of the
 * deps for tests (the OpenID provider's timing, the clock), and `timing` sets the keep-alive timeout and the
 * shutdown delay's wait; the server's defaults otherwise.
 */
export async function startServer(config: Config, log: Logger, options: DepsOptions = {}, timing: ServerTiming = {}): Promise<RunningServer> {
  const { keepAliveTimeoutMs = 5000, wait = waitFor } = timing;
  const deps = await createDeps(config, log, options);
  const app = createApp(deps, await ContractIndex.build(deps.contract.document, deps.schemas));
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing = false;
  // Node closes a closing server's keep-alive connections only once they are idle, and a response sent meanwhile
  // would keep its connection open: while closing, each answer ends its connection.
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
    // 'close' follows the answer's last byte, or a connection that broke before it: a request in flight as the
    // server began closing leaves its connection idle then
    res.once('close', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    deps,
    stop(graceMs = config.shutdown.timeoutMs, delayMs = config.shutdown.delayMs) {
      stopping ??= (async () => {
        deps.drain.begin();
        if (delayMs > 0) await wait(delayMs);
        closing = true;
        // event streams end now: their browsers reconnect, through the load balancer, to another instance
        deps.events.endStreams();
        // downloads, listings and refreshes in flight end now, whatever the object store does: a request that waits
        // for one answers within the grace period instead of keeping the process
        const storeStopped = deps.store?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // logged once the listening socket is closed, so that whoever reads it finds new connections refused
        log.info({ graceMs }, 'shutting down: no new connections; finishing in-flight requests');
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(timer);
        await storeStopped;
        await deps.close();
      })();
      return stopping;
    },
  };
}
