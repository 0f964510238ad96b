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
});
