// Links node_modules/.bin/node to the project's Node.js when npm left the link out. `npm install` installs the
// `node-<platform>-<arch>` package of the machine (package.json optionalDependencies) and links its `bin/node`; npm 10
// (the npm of Node.js 20 and 22) removes that link again at the end of the install when the lockfile also lists the
// package of another platform: it deletes the skipped package's bin paths, `node_modules/.bin/node` among them.
// Runs at `prepare`, before the build; does nothing when the link is there, no such package is installed or npm
// linked no bins at all. It replaces only a link that leads nowhere, never a file (test/unit/link-node.test.ts).
import fs from 'node:fs';
import path from 'node:path';

const bin = path.join('node_modules', '.bin');
const link = path.join(bin, 'node');
const { optionalDependencies = {} } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const runtime = `node-${process.platform}-${process.arch}`;
const target = path.join('..', runtime, 'bin', 'node');
// `npm install --no-bin-links` makes no node_modules/.bin: nothing to restore there
if (fs.existsSync(bin) && !fs.existsSync(link) && runtime in optionalDependencies && fs.existsSync(path.join(bin, target))) {
  fs.rmSync(link, { force: true }); // a link that leads nowhere
  fs.symlinkSync(target, link);
  process.stdout.write(`linked ${link} -> ${target} (npm left it out)\n`);
}
