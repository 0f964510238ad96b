import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { generateDemo } from '../../src/demo/generate.js';
import type { OidcTiming } from '../../src/auth/oidc.js';
import type { FileSink } from '../../src/store/object-store.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerTiming } from '../../src/server.js';
import type { DepsOptions } from '../../src/deps.js';

let demoTemplate: string | null = null;

/** A demo data tree generated once per test process; each server gets its own copy. */
export function demoTemplateDir(): string {
  if (demoTemplate === null) {
    demoTemplate = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-demo-template-'));
    generateDemo({ out: demoTemplate });
    process.once('exit', () => fs.rmSync(demoTemplate as string, { recursive: true, force: true }));
  }
  return demoTemplate;
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A running server on an ephemeral port over its own copy of the demo data (or `dataDir` as given). */
export interface TestServer extends RunningServer {
  readonly dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts the real server (createDeps + createApp + listen on port 0) with extra environment `env`, logging to
 * `log` when given (else nowhere), with the OpenID provider timing `oidcTiming`, the clock `now`, the `readers` of
 * long reads, the `signalTools` (checker, compiler, definition parser), the server's `timing` (keep-alive timeout, shutdown delay's wait) and where store downloads write
 * (`storeFileSink`) when given.
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    log?: Logger;
    oidcTiming?: OidcTiming;
    now?: () => number;
    readers?: DepsOptions['readers'];
    signalTools?: DepsOptions['signalTools'];
    timing?: ServerTiming;
    storeFileSink?: FileSink;
  } = {},
): Promise<TestServer> {
  const own = options.dataDir === undefined ? tempDir('ads-test-') : null;
  const dataDir = options.dataDir ?? own!.dir;
  if (own !== null) fs.cpSync(demoTemplateDir(), dataDir, { recursive: true });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KLS_DIR: path.join(dataDir, 'kls'),
    LOG_LEVEL: 'silent',
    GIT_WORKSPACES_DIR: '',
    ...options.env,
  });
  const server = await startServer(
    config,
    options.log ?? createLogger(config.logLevel),
    { oidcTiming: options.oidcTiming, now: options.now, readers: options.readers, signalTools: options.signalTools, storeFileSink: options.storeFileSink },
    options.timing,
  );
  return {
    ...server,
    dataDir,
    async close() {
      await server.stop(1000);
      own?.remove();
    },
  };
}
