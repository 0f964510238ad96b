import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const EVERYTHING = { roles: ['viewer', 'editor', 'admin'], tenants: ['*'] };
describe('GET /api/identity', () => {
  const home = tempDir('ads-git-');
  const globalConfig = path.join(home.dir, 'gitconfig');
  const workspaces = path.join(home.dir, 'workspaces');
  let saved: string | undefined;
  let server: TestServer;

  before(async () => {
    fs.writeFileSync(globalConfig, '[user]\n\tname = Global Person\n\temail = global@example.org\n');
    const tree = path.join(workspaces, 'kantonsspital');
    fs.mkdirSync(tree, { recursive: true });
    execFileSync('git', ['init', '-q', tree]);
    execFileSync('git', ['-C', tree, 'config', 'user.name', 'Anna Muster']);
    execFileSync('git', ['-C', tree, 'config', 'user.email', 'anna.muster@kantonsspital.example']);
    saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    server = await startTestServer({ env: { GIT_WORKSPACES_DIR: workspaces } });
  });
  after(async () => {
    await server.close();
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
    home.remove();
  });

  it('answers the global git identity without a tenant', async () => {
    const res = await call(server.url, '/api/identity');
    expect(res.status).to.equal(200);
    // without sign-in the local user may do everything on every tenant
    expect(res.body).to.deep.equal({ name: 'Global Person', email: 'global@example.org', ...EVERYTHING });
  });

  it("prefers the tenant's work tree configuration", async () => {
    const res = await call(server.url, '/api/identity?tenant=kantonsspital');
    expect(res.body).to.deep.equal({ name: 'Anna Muster', email: 'anna.muster@kantonsspital.example', ...EVERYTHING });
  });

  it('falls back to the global identity for a tenant without a work tree', async () => {
    const res = await call(server.url, '/api/identity?tenant=west.rehaklinik');
    expect(res.body).to.deep.equal({ name: 'Global Person', email: 'global@example.org', ...EVERYTHING });
  });

  it('answers null fields when git has no identity', async () => {
    process.env.GIT_CONFIG_GLOBAL = path.join(home.dir, 'missing-config');
    try {
      const res = await call(server.url, '/api/identity');
      expect(res.body).to.deep.equal({ name: null, email: null, ...EVERYTHING });
    } finally {
      process.env.GIT_CONFIG_GLOBAL = globalConfig;
    }
  });

  it('answers 404 for an unknown tenant and 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/identity?tenant=nowhere'), 404);
    const ambiguous = await call(server.url, '/api/identity?tenant=rehaklinik');
    expectProblem(ambiguous, 409);
    expect(ambiguous.body.detail).to.include('ost.rehaklinik').and.include('west.rehaklinik');
  });

  it("runs git without the server's secrets in its environment", async () => {
    // a git on PATH that writes the environment it was given, then answers as git would
    const bin = path.join(home.dir, 'bin');
    const seen = path.join(home.dir, 'git-environment.txt');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nenv >> '${seen}'\necho 'Env Person'\n`, { mode: 0o755 });
    const secrets = { ANTHROPIC_API_KEY: 'sk-ant-secret-1', GITHUB_TOKEN: 'ghp_secret_2', S3_SECRET_KEY: 'secret-3', APP_DB_URL: 'postgres://u:secret-4@db/x' };
    const saved = { PATH: process.env.PATH, ...Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]])) };
    Object.assign(process.env, secrets, { PATH: `${bin}:${process.env.PATH}` });
    try {
      const res = await call(server.url, '/api/identity');
      expect(res.body.name).to.equal('Env Person');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const environment = fs.readFileSync(seen, 'utf8');
    expect(environment).to.include(`GIT_CONFIG_GLOBAL=${globalConfig}`);
    expect(environment).to.match(/^PATH=/m);
    for (const [name, value] of Object.entries(secrets)) {
      expect(environment).not.to.include(name);
      expect(environment).not.to.include(value);
    }
  });
});
