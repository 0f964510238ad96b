import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/db-status/{tenant}', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers generation 1, the file mtime and size for a slug and for a composite ID', async () => {
    const file = path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite');
    const stat = fs.statSync(file);
    for (const tenant of ['kantonsspital', 'ost.kantonsspital']) {
      const res = await call(server.url, `/api/db-status/${tenant}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ generation: 1, mtime: stat.mtime.toISOString(), sizeMb: Math.round((stat.size / 1048576) * 100) / 100 });
      expect(res.headers.get('cache-control')).to.equal('no-store');
    }
  });

  it('swaps a replaced file: generation + 1 and the new mtime; requests then read the new file', async () => {
    const dir = path.join(server.deps.config.klsDir, 'west', 'hopital-cantonal');
    const before = await call(server.url, '/api/db-status/hopital-cantonal');
    const copy = path.join(dir, 'kls.sqlite.tmp');
    fs.copyFileSync(path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), copy);
    fs.utimesSync(copy, new Date('2026-11-02T08:00:00Z'), new Date('2026-11-02T08:00:00Z'));
    fs.renameSync(copy, path.join(dir, 'kls.sqlite'));
    const after = await call(server.url, '/api/db-status/hopital-cantonal');
    expect(after.body.generation).to.equal(before.body.generation + 1);
    expect(after.body.mtime).to.equal('2026-11-02T08:00:00.000Z');
    const list = await call(server.url, '/api/jumpbar?mode=tenants');
    const entry = list.body.tenants.find((t: { id: string }) => t.id === 'west.hopital-cantonal');
    expect(entry.name).to.equal('Kantonsspital Ost');
  });

  it('answers 404 for an unknown tenant, 409 for an ambiguous slug, 400 for a malformed one', async () => {
    expectProblem(await call(server.url, '/api/db-status/nowhere'), 404);
    expectProblem(await call(server.url, '/api/db-status/ost.nowhere'), 404);
    expectProblem(await call(server.url, '/api/db-status/rehaklinik'), 409);
    const traversal = await call(server.url, '/api/db-status/..%2Fx');
    expectProblem(traversal, 400);
    expect(traversal.body.errors[0]).to.include({ in: 'path', name: 'tenant' });
    expectProblem(await call(server.url, '/api/db-status/Ost.Spital'), 400);
  });
});
