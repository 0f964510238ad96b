import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Runs `script` with `node` and tsx in `cwd`, as `user` when given (root only); its exit code and output. */
function runScript(node: string, cwd: string, script: string, user: { uid: number; gid: number } | null): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', 'tsx', script], {
      cwd,
      ...(user ?? {}),
      env: { PATH: process.env.PATH, TMPDIR: os.tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/**
 * The running Node.js binary at `<dir>/node`, hard-linked (copied where the file system does not allow it): the
 * binary may live where an ordinary user cannot reach it (the project's own Node in `.node/` or `node_modules/`
 * of a checkout under a folder only root may enter), and `dir` is one the user can.
 */
function nodeIn(dir: string): string {
  const target = path.join(dir, 'node');
  try {
    fs.linkSync(process.execPath, target);
  } catch {
    fs.copyFileSync(process.execPath, target);
    fs.chmodSync(target, 0o755);
  }
  return target;
}

describe('the PostgreSQL test helper (test/helpers/postgres.ts)', function () {
  // a hard-linked copy of node_modules and two PostgreSQL starts
  this.timeout(300_000);

  it('starts wherever the checkout lives: under a folder only its owner may enter, as root and as an ordinary user', async () => {
    const root = os.userInfo().uid === 0;
    const rootOnly = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-0700-'));
    fs.chmodSync(rootOnly, 0o700);
    let userOwned: string | null = null;
    try {
      // a checkout: the helper and what it imports, node_modules hard-linked (the same files, another folder)
      const checkout = path.join(rootOnly, 'p');
      fs.mkdirSync(path.join(checkout, 'test', 'helpers'), { recursive: true, mode: 0o755 });
      for (const file of ['postgres.ts', 'ports.ts']) fs.copyFileSync(path.join('test', 'helpers', file), path.join(checkout, 'test', 'helpers', file));
      fs.copyFileSync('package.json', path.join(checkout, 'package.json'));
      execFileSync('cp', ['-al', 'node_modules', path.join(checkout, 'node_modules')]);
      const script = path.join('test', 'try-postgres.ts');
      fs.writeFileSync(
        path.join(checkout, script),
        [
          "import { startPostgres } from './helpers/postgres.ts';",
          'const server = await startPostgres();',
          'await server.createDatabase();',
          'await server.stop();',
          'await server.start();',
          'console.log(`PostgreSQL ${server.version} on ${server.port}`);',
          'await server.close();',
        ].join('\n'),
      );

      // as whoever runs the tests (root in CI): the server itself runs as `postgres` then, who cannot enter rootOnly
      const own = await runScript(process.execPath, checkout, script, null);
      expect(own.code, own.output).to.equal(0);
      expect(own.output).to.match(/^PostgreSQL \d+\.\d+ on \d+$/m);

      if (root) {
        // as an ordinary user, from a folder only that user may enter
        const nobody = { uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })) };
        userOwned = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-0700-user-'));
        fs.chmodSync(userOwned, 0o700);
        fs.chownSync(userOwned, nobody.uid, nobody.gid);
        const moved = path.join(userOwned, 'p');
        fs.renameSync(checkout, moved);
        const ordinary = await runScript(nodeIn(userOwned), moved, script, nobody);
        expect(ordinary.code, ordinary.output).to.equal(0);
        expect(ordinary.output).to.match(/^PostgreSQL \d+\.\d+ on \d+$/m);
      }
    } finally {
      fs.rmSync(rootOnly, { recursive: true, force: true });
      if (userOwned !== null) fs.rmSync(userOwned, { recursive: true, force: true });
    }
  });
});
