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
