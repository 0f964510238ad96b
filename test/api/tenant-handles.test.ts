import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { generateDemo, type DemoSummary } from '../../src/demo/generate.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** The files under `dir` this process holds open, by kind: KLS files and search indexes. */
function openTenantFiles(dir: string): { kls: number; searchIndexes: number } {
  const root = fs.realpathSync(dir) + path.sep;
  let kls = 0;
  let searchIndexes = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(root)) continue;
    const name = path.basename(target);
    if (name === 'kls.sqlite') kls += 1;
    else if (/^search-index\.g\d+\.sqlite$/.test(name)) searchIndexes += 1;
  }
  return { kls, searchIndexes };
}

async function status(url: string): Promise<number> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
}

const generationOf = async (server: TestServer, tenant: string): Promise<number> =>
  ((await (await fetch(`${server.url}/api/db-status/${tenant}`)).json()) as { generation: number }).generation;

describe('TENANT_HANDLES_MAX: open tenant files stay bounded, and no request fails because a connection was closed', function () {
  this.timeout(120_000);

  describe('ten tenants, at most three open', () => {
    const data = tempDir('ads-handles-');
    let demo: DemoSummary;
    let server: TestServer;

    before(async () => {
      demo = generateDemo({ out: data.dir, tenants: 10 });
      server = await startTestServer({ dataDir: data.dir, env: { TENANT_HANDLES_MAX: '3' } });
    });
    after(async () => {
      await server.close();
      data.remove();
    });

    it('serves a search, a summary and an export of every tenant, twice over, with at most 3 KLS files and 3 search indexes open', async () => {
      for (let round = 0; round < 2; round++) {
        for (const { compositeId } of demo.tenants) {
          expect(await status(`${server.url}/api/jumpbar?mode=search&tenant=${compositeId}&q=kosten`), `search ${compositeId}`).to.equal(200);
          expect(await status(`${server.url}/api/jumpbar?mode=summary&tenant=${compositeId}`), `summary ${compositeId}`).to.equal(200);
          expect(await status(`${server.url}/${compositeId}/dimensions/cost_centres/export`), `export ${compositeId}`).to.equal(200);
          const open = openTenantFiles(path.join(data.dir, 'kls'));
          expect(open.kls, `KLS files open after ${compositeId}`).to.be.at.most(3);
          // plus, while background work runs, the one whose names are being read into memory
          expect(open.searchIndexes, `search indexes open after ${compositeId}`).to.be.at.most(3 + 1);
        }
      }
      await until(() => openTenantFiles(path.join(data.dir, 'kls')).searchIndexes <= 3, { deadline: 10_000, every: 50, what: 'at most 3 search indexes open once the background work settled' });
      expect(server.deps.tenants.openHandles).to.be.at.most(3);
      expect(server.deps.tenants.evictedHandles).to.be.at.least(demo.tenants.length);
      expect(server.deps.searchIndexes.openIndexes).to.be.at.most(3);
    });

    it('keeps the generation when a closed connection reopens on the same file', async () => {
      const first = demo.tenants[0]!.compositeId;
      const before = await generationOf(server, first);
      // the other tenants push the first one's connection out
      for (const { compositeId } of demo.tenants.slice(1)) await status(`${server.url}/api/jumpbar?mode=summary&tenant=${compositeId}`);
      expect(server.deps.tenants.resolve(first).handle!.isOpen).to.equal(false);
      expect(await status(`${server.url}/api/jumpbar?mode=summary&tenant=${first}`)).to.equal(200);
      expect(await generationOf(server, first)).to.equal(before);
    });

    it('swaps in a file replaced while its connection was closed, on the first request that needs it', async () => {
      const [target, donor] = [demo.tenants[1]!, demo.tenants[2]!];
      for (const { compositeId } of demo.tenants.slice(2)) await status(`${server.url}/api/jumpbar?mode=summary&tenant=${compositeId}`);
      const entry = server.deps.tenants.resolve(target.compositeId);
      expect(entry.handle!.isOpen).to.equal(false);
      const generation = entry.generation;
      fs.copyFileSync(donor.file, `${target.file}.new`);
      fs.renameSync(`${target.file}.new`, target.file);
      // asked before the local scan notices: the summary already answers from the new file
      const res = await fetch(`${server.url}/api/jumpbar?mode=summary&tenant=${target.compositeId}`);
      expect(res.status).to.equal(200);
      expect(entry.generation).to.equal(generation + 1);
      expect(entry.status).to.equal('ready');
      expect(entry.displayName).to.equal(server.deps.tenants.resolve(donor.compositeId).displayName);
    });
  });

  describe('a leased connection is never closed', () => {
    const ROWS = 150_000; // about 15 MB of CSV: far more than the socket buffers hold
    const data = tempDir('ads-handles-export-');
    let server: TestServer;

    before(async () => {
      generateDemo({ out: data.dir, tenants: 3, rows: ROWS });
      server = await startTestServer({ dataDir: data.dir, env: { TENANT_HANDLES_MAX: '1' } });
      // the search index builds queued at start lease each tenant's connection in turn: over before the export
      await server.deps.searchIndexes.buildsSettled();
    });
    after(async () => {
      await server.close();
      data.remove();
    });

    it('finishes an export whose client paused while every other tenant was served', async () => {
      const request = http.get(`${server.url}/ost.kantonsspital/dimensions/materials/export`);
      const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
      expect(response.statusCode).to.equal(200);
      const chunks: Buffer[] = [];
      await new Promise((resolve) =>
        response.once('data', (chunk: Buffer) => {
          response.pause(); // at once: a chunk emitted before the pause would be lost
          resolve(chunks.push(chunk));
        }),
      );
      for (const tenant of ['ost.rehaklinik', 'west.hopital-cantonal']) {
        expect(await status(`${server.url}/api/jumpbar?mode=summary&tenant=${tenant}`)).to.equal(200);
        expect(await status(`${server.url}/${tenant}/dimensions/cost_centres/export`)).to.equal(200);
      }
      // the other tenants' connections were closed as soon as they were idle; the paused export's stays open
      const exporting = server.deps.tenants.resolve('ost.kantonsspital').handle!;
      expect(exporting.isOpen).to.equal(true);
      expect(exporting.leaseCount).to.equal(1);
      expect(server.deps.tenants.openHandles).to.equal(1);
      expect(server.deps.tenants.resolve('ost.rehaklinik').handle!.isOpen).to.equal(false);
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.resume();
      await new Promise((resolve) => response.once('end', resolve));
      const records = Buffer.concat(chunks).toString('utf8').split('\r\n');
      expect(records.pop()).to.equal('');
      expect(records).to.have.length(ROWS + 1);
      expect(exporting.leaseCount).to.equal(0);
      expect(server.deps.tenants.openHandles).to.equal(1);
    });
  });
});
