import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Secrets the server is given in these tests: none may appear in anything it prints. */
const SECRETS = ['S3cretpw', 'S3cretKey', 'ghp_S3cretToken'];

describe('the server prints no secret', function () {
  this.timeout(60_000);
  const folder = tempDir('ads-server-secrets-');
  after(() => folder.remove());

  it("keeps running, and prints no path or password, when node-postgres cannot read the APP_DB_URL's sslkey (store mode: the refresh channel too)", async () => {
    const closed = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATA_DIR: folder.dir,
        KLS_MODE: 'store',
        S3_ENDPOINT: `http://127.0.0.1:${closed}`,
        S3_BUCKET: 'kls',
        APP_DB_URL: `postgres://desk:S3cretpw@127.0.0.1:${closed}/desk?sslkey=/nonexistent/S3cretKey.pem`,
        GITHUB_TOKEN: 'ghp_S3cretToken',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // node-postgres throws the file's error when a client is made: the refresh channel's was uncaught and ended the
    // process; now it is logged (masked) and tried again, and the app database is retried every 2 s meanwhile
    const notReachable = (): number => output.split('\n').filter((line) => line.includes('app database not reachable')).length;
    await until(() => child.exitCode !== null || (output.includes('store refresh: no connection to the app database') && notReachable() >= 2), { what: 'two attempts on the app database' });
    expect(child.exitCode, output).to.equal(null);
    child.kill('SIGTERM');
    expect(await exited, output).to.equal(0);
    expect(output).to.include("ENOENT: no such file or directory, open '***'");
    for (const secret of SECRETS) expect(output, secret).not.to.include(secret);
  });

  it('prints an error nothing caught masked, and exits 1', async () => {
    // a module loaded before the server's that throws, outside any request, when told to
    const thrower = `process.on('SIGUSR2', () => setImmediate(() => { throw Object.assign(new Error('lost postgres://desk:S3cretpw@db.example/desk'), { path: '/etc/S3cretKey.pem' }); }));`;
    const preload = path.join(folder.dir, 'thrower.mjs');
    fs.writeFileSync(preload, thrower);
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(preload).href, 'src/main.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: folder.dir, APP_DB_URL: `sqlite:${folder.dir}/app.sqlite` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => child.exitCode !== null || stdout.includes('"msg":"listening"'), { what: 'the server listening', deadline: 30_000 });
    child.kill('SIGUSR2');
    expect(await exited, stderr).to.equal(1);
    expect(stderr).to.match(/^crashed: Error: lost postgres:\/\/desk:\*\*\*@db\.example\/desk\n {4}at /);
    for (const secret of SECRETS) expect(stdout + stderr, secret).not.to.include(secret);
  });
});
