// Preloaded into a server process (NODE_OPTIONS="--import <this file>") to list every module it loads in the file
// LOADED_MODULES_FILE: ESM modules as they load (loaded-modules-hook.mjs), the CommonJS ones (require.cache) when
// the process exits. See loadedModules() in loaded-modules.ts.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (file) {
  register('./loaded-modules-hook.mjs', import.meta.url, { data: { file } });
  const cache = createRequire(import.meta.url).cache;
  process.once('exit', () => fs.appendFileSync(file, Object.keys(cache).map((name) => `${name}\n`).join('')));
}
