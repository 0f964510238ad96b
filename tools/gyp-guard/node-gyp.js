#!/usr/bin/env node
'use strict';
// npm runs a dependency's install scripts with every node_modules/.bin from that package up to the project first on
// PATH, ahead of its own node-gyp, and links the dependencies' bins before it runs their install scripts. This
// `node-gyp` stands there. It skips the `node-gyp rebuild` that npm adds for a package with a binding.gyp and no
// install or preinstall script when that package's package.json says "gypfile": false: npm's own rule, which npm 10
// cannot apply when it installs from a lockfile (the lockfile does not record `gypfile`). Every other call goes on
// to npm's node-gyp, which npm names in npm_config_node_gyp for every script it runs.
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

/** The package.json of the package npm runs the script for (the working folder), or undefined. */
function packageHere() {
  try {
    return JSON.parse(fs.readFileSync(path.join(process.cwd(), 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** True for npm's implicit install-time rebuild of a package that opted out of it. */
function implicitRebuildOptedOut(pkg) {
  const implicit = process.env.npm_lifecycle_event === 'install' && process.env.npm_lifecycle_script === 'node-gyp rebuild' &&
    process.argv.length === 3 && process.argv[2] === 'rebuild';
  if (!implicit || pkg === undefined) return false;
  const scripts = pkg.scripts || {};
  return pkg.gypfile === false && !scripts.install && !scripts.preinstall;
}

const pkg = packageHere();
if (implicitRebuildOptedOut(pkg)) {
  process.stderr.write(`node-gyp rebuild skipped for ${pkg.name}@${pkg.version}: its package.json says "gypfile": false\n`);
  process.exit(0);
}

/** The file `file` leads to after its links (itself when it does not exist). */
const realpath = (file) => {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

const npmGyp = process.env.npm_config_node_gyp;
if (!npmGyp || realpath(npmGyp) === realpath(__filename)) {
  process.stderr.write('node-gyp: run it through npm (npm exec node-gyp, npm rebuild), which names its own node-gyp in npm_config_node_gyp\n');
  process.exit(1);
}
// npm stops a script by signalling its process (this one): the signal goes on to npm's node-gyp, and this process
// ends as that one ends, with its exit code or by its signal.
const child = spawn(process.execPath, [npmGyp, ...process.argv.slice(2)], { stdio: 'inherit' });
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.once('error', (error) => {
  process.stderr.write(`node-gyp: cannot run npm's node-gyp ${npmGyp}: ${error.message}\n`);
  process.exit(1);
});
child.once('exit', (code, signal) => {
  if (signal === null) process.exit(code);
  for (const name of forwarded) process.removeAllListeners(name);
  process.kill(process.pid, signal);
});
