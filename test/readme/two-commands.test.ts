import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { freshClone, repositoryRoot, startServerShell, withoutNpmRun, type ServerShell } from '../helpers/fresh-clone.js';
import { olderNode, userPath } from '../helpers/older-node.js';

const pinned = fs.readFileSync(path.join(repositoryRoot, '.node-version'), 'utf8').trim();

// The README's first promise, tried as a new user would: a fresh clone of this repository's committed state, on a
// machine whose `node` is older than the project's, and exactly `npm install && npm start` (npm's cache is warm, as
// after the `npm ci` CI ran before). Only the port is chosen by the system, so that the run never collides.
describe("the README's two commands on a machine with an older Node.js", function () {
  this.timeout(600_000);
  let folder: string | undefined;
  let shell: ServerShell | undefined;

  after(async () => {
    await shell?.stop();
    if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('npm install && npm start in a fresh clone serves GET /health 200 on the Node.js of .node-version', async () => {
    const older = olderNode(path.join(repositoryRoot, '.cache'));
    expect(Number(older.version.slice(1).split('.')[0]), `${older.version} is not older`).to.be.lessThan(Number(pinned.split('.')[0]));

    let clone: string;
    ({ folder, clone } = freshClone('ads-two-commands-'));
    // the user's environment: their PATH with the older Node first, none of what `npm test` set for its scripts
    const env = { ...withoutNpmRun(), PATH: [older.binDir, ...userPath()].join(path.delimiter), PORT: '0', HOST: '127.0.0.1' };
    shell = startServerShell('npm install && npm start', clone, env);
    const port = await shell.listening(540_000);

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.include({ status: 'ok', mode: 'local' });
    // the Node.js the server runs on, as its metrics report it
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).to.match(new RegExp(`^nodejs_version_info\\{version="v${pinned.replace(/\./g, '\\.')}"`, 'm'));
  });
});
