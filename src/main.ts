// First: stops an older Node.js before the modules below load.
import './node-version.js';
import fs from 'node:fs';
import path from 'node:path';
import { AppDbMigrationError } from './appdb/app-database.js';
import { maskedText } from './common/secrets.js';
import { ConfigError, configSecrets, loadConfig } from './config.js';
import { generateDemo } from './demo/generate.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';
import { startTracing } from './telemetry/start-tracing.js';

/** True when `klsDir` holds at least one `<pack>/<slug>/kls.sqlite`. */
function hasTenantFiles(klsDir: string): boolean {
  try {
    return fs.readdirSync(klsDir).some((pack) => {
      try {
        return fs.readdirSync(path.join(klsDir, pack)).some((slug) => fs.existsSync(path.join(klsDir, pack, slug, 'kls.sqlite')));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** The configuration's secrets (configSecrets), masked in the log and in the `failed to start:` line. */
let secrets: string[] = [];

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      // the URL settings are masked where they are read; any other value that holds a URL is masked here
      process.stderr.write(`${maskedText(err.message)}\n`);
      process.exit(2);
    }
    throw err;
  }
  secrets = configSecrets(config);
  const log = createLogger(config.logLevel, { traceIds: config.tracing !== null, secrets });
  // Before anything opens a connection: the instrumentations patch http and pg (docs/decisions/0012-tracing-starts-in-main.md).
  const tracing = await startTracing(config.tracing, log);
  if (config.demo && !hasTenantFiles(config.klsDir)) {
    const started = Date.now();
    const summary = generateDemo({ out: config.dataDir });
    log.info({ dataDir: config.dataDir, tenants: summary.tenants.length, ms: Date.now() - started }, 'demo data generated');
  }
  const server = await startServer(config, log);
  log.info({ url: server.url, port: server.port, mode: config.klsMode, tenants: server.deps.tenants.list().length }, 'listening');

  const { delayMs } = config.shutdown;
  const shutdown = (signal: string) => {
    log.info({ signal, delayMs }, 'shutting down: readiness answers 503');
    server.stop().then(() => tracing?.stop()).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

// An error nothing caught (a rejection nobody awaited included) ends the process with exit 1 as Node's own handler
// does, but printed masked: Node prints the error whole, its stack and fields (a driver's `path`) in clear.
process.on('uncaughtException', (err: unknown) => {
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`crashed: ${maskedText(text, secrets)}\n`);
  process.exit(1);
});

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${maskedText(err.message)}\n`);
    process.exit(2);
  }
  if (err instanceof AppDbMigrationError) {
    // not "unreachable, trying again": this version cannot use the database as it is (docs/deployment.md)
    process.stderr.write(`failed to start: ${maskedText(err.message, secrets)}\n`);
    process.exit(3);
  }
  process.stderr.write(`failed to start: ${maskedText(err instanceof Error ? err.message : String(err), secrets)}\n`);
  process.exit(1);
});
