import type { Logger } from '../../src/logger.js';
import type { FileSink } from '../../src/store/object-store.js';
import { call } from './http.js';
import type { TestObjectStore } from './s3rver.js';
import { startTestServer, tempDir, type TestServer } from './server.js';
import { until } from './until.js';

/**
 * A store-mode server over `store`; `dataDir` given = that cache, else an empty one removed on close; downloads
 * written through `storeFileSink` when given; logging to `log` when given (else nowhere).
 */
export async function startStoreModeServer(
  store: Pick<TestObjectStore, 'env'>,
  options: { env?: Record<string, string>; dataDir?: string; storeFileSink?: FileSink; log?: Logger } = {},
): Promise<TestServer> {
  const own = options.dataDir === undefined ? tempDir('ads-store-') : null;
  const server = await startTestServer({
    dataDir: options.dataDir ?? own!.dir,
    env: store.env(options.env),
    ...(options.storeFileSink === undefined ? {} : { storeFileSink: options.storeFileSink }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  return {
    ...server,
    async close() {
      await server.close();
      own?.remove();
    },
  };
}

/** `until` with the deadline and the name as arguments: polls `check` every 20 ms; fails after `ms`. */
export function waitUntil<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000, what = 'condition'): Promise<T> {
  return until(check, { deadline: ms, what });
}

/** Waits until store-status says the first sync has finished and nothing downloads; returns that status. */
export async function waitForSync(server: TestServer, ms = 15_000): Promise<any> {
  return waitUntil(
    async () => {
      const res = await call(server.url, '/api/store-status');
      return res.body.initialized === true && res.body.downloading === false ? res.body : undefined;
    },
    ms,
    'the store sync',
  );
}
