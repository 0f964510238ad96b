import fs from 'node:fs';
import path from 'node:path';

/** A temporary path beside `target`, so the final rename stays on one file system. */
export function tempPathBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
}

/** Writes a file by writing a temporary file beside it and renaming it over the target. */
export function writeFileAtomic(target: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = tempPathBeside(target);
  fs.writeFileSync(temp, content);
  fs.renameSync(temp, target);
}
