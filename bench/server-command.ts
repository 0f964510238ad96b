// The server as `npm start` runs it: the node flags and entry file of package.json's `start` script, so the
// benchmarks measure exactly what production runs.
import fs from 'node:fs';
import path from 'node:path';

const checkout = path.resolve(import.meta.dirname, '..');

/** `[...nodeFlags, absoluteEntry]` for `spawn(process.execPath, …)` of the build in `root` (this checkout by default); throws when the build is missing. */
export function serverArgs(root = checkout): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = pkg.scripts.start.trim().split(/\s+/);
  const entry = args.pop();
  if (command !== 'node' || entry === undefined || args.some((arg) => !arg.startsWith('--'))) {
    throw new Error(`package.json start script is not "node [--flag ...] <entry>": ${pkg.scripts.start}`);
  }
  const file = path.join(root, entry);
  if (!fs.existsSync(file)) throw new Error('run `npm run build` first');
  return [...args, file];
}
