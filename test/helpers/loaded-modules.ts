import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const preload = path.join(import.meta.dirname, 'loaded-modules.mjs');

/** Environment for spawnServer that makes the process list the modules it loads into `file` (read with loadedModules). */
export const listLoadedModules = (file: string): Record<string, string> => ({ NODE_OPTIONS: `--import "${preload}"`, LOADED_MODULES_FILE: file });

/** The files of the modules listed so far: ESM ones as they loaded, the CommonJS ones once the process has exited. */
export function loadedModules(file: string): string[] {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
  return [...new Set(lines.map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line)))];
}
