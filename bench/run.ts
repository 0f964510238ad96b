// `npm run bench [-- name ...]`: runs every bench/*.bench.ts (or those named), one after the other.
// Each exports `run(): Promise<void>` and prints its figures; targets live here, not in unit tests.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.ts$/, '')}`);
  const bench = (await import(pathToFileURL(path.join(dir, file)).href)) as { run: () => Promise<void> };
  await bench.run();
}
