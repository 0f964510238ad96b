// `npm run bench [-- <name> [argument ...]]`: runs every bench/*.bench.ts one after the other, or the one whose file
// name begins with <name>, giving it the arguments (`npm run bench -- regress 2f08558`). Each exports
// `run(args): Promise<void>` and prints its figures and whether each goal holds; targets live here, not in unit tests.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = import.meta.dirname;
const [wanted, ...args] = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (wanted === undefined || f.startsWith(wanted)))
  .sort();
if (files.length === 0) throw new Error(`no bench/${wanted}*.bench.ts`);
for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.ts$/, '')}`);
  const bench = (await import(pathToFileURL(path.join(dir, file)).href)) as { run: (args: string[]) => Promise<void> };
  await bench.run(args);
}
