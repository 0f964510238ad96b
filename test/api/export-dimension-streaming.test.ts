import Database from 'better-sqlite3';
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { csvRecord } from '../../src/dimensions/csv.js';
import { DimensionCsvExports } from '../../src/dimensions/export.js';
import { generateDemo } from '../../src/demo/generate.js';
import { parseCsv } from '../helpers/csv.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const ROWS = 150_000; // about 15 MB of CSV: far more than the socket buffers hold
const DECLARED = ['q', 'sort', 'order', 'filters'];

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('dimension export: streaming, disconnects and the row cap', function () {
  this.timeout(60_000);
  let server: TestServer;
  const data = tempDir('ads-i5-large-');

  before(async () => {
    generateDemo({ out: data.dir, tenants: 3, rows: ROWS });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('streams all rows of a large table', async () => {
    const res = await fetch(`${server.url}/kantonsspital/dimensions/materials/export?sort=unit_price&order=desc`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('transfer-encoding')).to.equal('chunked');
    // records end in CRLF; the only line break inside a field in the demo data is a bare LF
    const records = (await res.text()).split('\r\n');
    expect(records.pop()).to.equal('');
    expect(records).to.have.length(ROWS + 1);
    const prices = records.slice(1).map((record) => Number(parseCsv(`${record}\r\n`)[0]![5]));
    expect(prices.every((price, i) => i === 0 || prices[i - 1]! >= price)).to.equal(true);
  });

  it('holds its lease while a paused client does not read, and releases it when the client disconnects', async () => {
    const entry = server.deps.tenants.resolve('kantonsspital');
    const generationAtStart = entry.handle!;
    const request = http.get(`${server.url}/kantonsspital/dimensions/materials/export`);
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    // a newer file is swapped in: the old connection stays open only because the export still leases it
    const file = path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite');
    fs.copyFileSync(file, `${file}.tmp`);
    fs.renameSync(`${file}.tmp`, file);
    const status = await fetch(`${server.url}/api/db-status/kantonsspital`);
    expect(((await status.json()) as { generation: number }).generation).to.equal(generationAtStart.generation + 1);
    // the paused client's buffer fills up: from then on the server can only wait for it
    await until(() => response.readableLength >= response.readableHighWaterMark, { what: "the paused client's buffer to be full" });
    expect(generationAtStart.isClosed, 'export finished although the client read nothing (no back-pressure)').to.equal(false);
    request.destroy();
    await until(() => generationAtStart.isClosed, { what: 'the lease to be released after the client disconnected' });
  });

  it('holds its lease while a paused client of a gzip export does not read, and releases it when the client disconnects', async () => {
    const entry = server.deps.tenants.resolve('west.hopital-cantonal');
    const generationAtStart = entry.handle!;
    const request = http.get(`${server.url}/west.hopital-cantonal/dimensions/materials/export?sort=unit_price`, { headers: { 'accept-encoding': 'gzip' } });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    expect(response.headers['content-encoding']).to.equal('gzip');
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    const file = path.join(server.deps.config.klsDir, 'west', 'hopital-cantonal', 'kls.sqlite');
    fs.copyFileSync(file, `${file}.tmp`);
    fs.renameSync(`${file}.tmp`, file);
    await until(async () => ((await (await fetch(`${server.url}/api/db-status/west.hopital-cantonal`)).json()) as { generation: number }).generation === generationAtStart.generation + 1, {
      what: 'the new file in service',
    });
    await until(() => response.readableLength >= response.readableHighWaterMark, { what: "the paused client's buffer to be full" });
    expect(generationAtStart.isClosed, 'export finished although the client read nothing (no back-pressure through the encoder)').to.equal(false);
    // the encoder is destroyed with the response; the export behind it must be destroyed too
    request.destroy();
    await until(() => generationAtStart.isClosed, { what: 'the lease to be released after the client of the gzip export disconnected' });
  });

  it('keeps answering small requests while an export is open, then sends every row', async () => {
    // the export's client reads nothing: the export cannot end (15 MB do not fit the buffers), so every small
    // request below is answered while it is open, however fast or slow the machine
    const request = http.get(`${server.url}/west.hopital-cantonal/dimensions/materials/export`);
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    expect(response.statusCode).to.equal(200);
    response.pause();
    let ended = false;
    response.once('end', () => (ended = true));
    await until(() => response.readableLength > 0, { what: 'the first rows of the export' });
    for (let i = 0; i < 20; i += 1) {
      const res = await fetch(`${server.url}/api/db-status/west.hopital-cantonal`);
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
    }
    expect(ended, 'the export ended before its client read it').to.equal(false);
    expect(server.deps.readers.jobCount, 'the export still on its reader').to.equal(1);
    response.setEncoding('utf8');
    const records = (await readAll(response)).split('\r\n');
    expect(records.pop()).to.equal('');
    expect(records).to.have.length(ROWS + 1);
    expect(records[0]).to.equal('material_id,name_de,name_fr,name_en,category,unit_price,is_implant,note');
  });

  /** The server's exports with a cap of 1,000 rows. */
  const cappedExports = () => new DimensionCsvExports(server.deps.tenants, server.deps.readers, undefined, 1000);
  const kantonsspital = () => server.deps.tenants.resolve('kantonsspital');

  it('cuts at the row cap and says so; a selection within the cap is complete', async () => {
    const capped = await cappedExports().start(kantonsspital(), 'materials', {}, DECLARED);
    if ('missing' in capped) throw new Error(capped.missing);
    expect(capped.truncated).to.equal(true);
    expect(parseCsv(await readAll(capped.csv))).to.have.length(1001);
    const implants = await cappedExports().start(kantonsspital(), 'materials', { 'f.category': 'Implant', 'f.unit_price': '2450' }, DECLARED);
    if ('missing' in implants) throw new Error(implants.missing);
    expect(implants.truncated).to.equal(false);
    expect(parseCsv(await readAll(implants.csv)).length).to.be.within(2, 1001);
  });

  it('cuts a sorted export at the row cap: the first rows of the whole sorted table, ties in table order', async () => {
    // a sort that ends in the rowid carries no LIMIT in SQL (the reader stops at the cap); it must answer what one would
    const query = { sort: 'category', order: 'desc' };
    const capped = await cappedExports().start(kantonsspital(), 'materials', query, DECLARED);
    if ('missing' in capped) throw new Error(capped.missing);
    expect(capped.truncated).to.equal(true);
    const file = path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite');
    const db = new Database(file, { readonly: true });
    const expected = (db.prepare('SELECT * FROM dim_materials ORDER BY category DESC, rowid LIMIT 1000').raw(true).safeIntegers(true).all() as unknown[][]).map(csvRecord);
    db.close();
    const header = 'material_id,name_de,name_fr,name_en,category,unit_price,is_implant,note\r\n';
    expect(await readAll(capped.csv)).to.equal(header + expected.join(''));
  });
});
