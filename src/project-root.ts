import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json and openapi.yaml, found from this module whether run from src/ or dist/src/. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'openapi.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('project root with package.json and openapi.yaml not found');
    dir = parent;
  }
}
