import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts the worker module `name` that sits beside the module `callerUrl` (`import.meta.url`): the compiled
 * `.js` file, or the TypeScript source through tsx when the server runs from source (tests).
 */
export function startWorker(callerUrl: string, name: string, workerData: unknown, resourceLimits: ResourceLimits = {}): Worker {
  const here = fileURLToPath(callerUrl);
  const extension = path.extname(here);
  const entry = path.join(path.dirname(here), `${name}${extension}`);
  if (extension !== '.ts') return new Worker(entry, { workerData, resourceLimits });
  const url = JSON.stringify(pathToFileURL(entry).href);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${url}); })`, { eval: true, workerData, resourceLimits });
}

/** What a worker that uses better-sqlite3 posts once the native module is loaded (`loadSqliteAddon`). */
export const ADDON_LOADED = { kind: 'addon-loaded' } as const;

/**
 * Resolves once `worker` has posted ADDON_LOADED, or has ended. A worker terminated while better-sqlite3's
 * Node-API module registers itself aborts the whole process (node-addon-api's `Error::New` fatal error), so a
 * worker that loads it is terminated only after this.
 */
export function addonLoaded(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      worker.off('message', onMessage);
      resolve();
    };
    const onMessage = (message: unknown): void => {
      if ((message as { kind?: unknown } | null)?.kind === ADDON_LOADED.kind) done();
    };
    worker.on('message', onMessage);
    worker.once('exit', done);
    worker.once('error', done);
  });
}
