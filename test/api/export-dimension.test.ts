import Database from 'better-sqlite3';
import { expect } from 'chai';
import path from 'node:path';
import { csvField } from '../../src/dimensions/csv.js';
import { parseCsv } from '../helpers/csv.js';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

const exportUrl = (entity: string, query = '') => `/kantonsspital/dimensions/${entity}/export${query === '' ? '' : `?${query}`}`;

describe('GET /{tenant}/dimensions/{entity}/export', () => {
  let server: TestServer;
  let kls: Database.Database;
  const csv = async (entity: string, query = ''): Promise<string[][]> => {
    const res = await call(server.url, exportUrl(entity, query));
    expect(res.status, res.text).to.equal(200);
    return parseCsv(res.text);
  };
  const column = (rows: string[][], name: string): string[] => rows.slice(1).map((row) => row[rows[0]!.indexOf(name)]!);

  before(async () => {
    server = await startServerWithBrokenTenant();
    kls = new Database(path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), { readonly: true });
  });
  after(async () => {
    kls.close();
    await server.close();
  });

  it('streams the whole table as CSV with a header row in table order, as an attachment', async () => {
    const res = await call(server.url, exportUrl('cost_centres'));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).to.equal('attachment; filename="cost_centres.csv"');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('x-export-truncated')).to.equal(null);
    expect(res.text.endsWith('\r\n')).to.equal(true);
    const rows = parseCsv(res.text);
    const stored = kls.prepare('SELECT * FROM dim_cost_centres').raw(true).all() as unknown[][];
    const columns = (kls.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('dim_cost_centres') as string[]);
    expect(rows[0]).to.deep.equal(columns);
    expect(rows.slice(1)).to.deep.equal(stored.map((row) => row.map((value) => (value === null ? '' : String(value)))));
    expect(res.text).to.include('KST-4100,Surgery physicians,Ärztlicher Dienst Chirurgie,Corps médical de chirurgie,Surgery,1,7440000\r\n');
  });

  it('quotes per RFC 4180 and writes formula-like text with a leading quote, numbers untouched', async () => {
    const res = await call(server.url, exportUrl('materials'));
    const rows = parseCsv(res.text);
    expect(rows).to.have.length(501);
    const note = (id: string) => rows.find((row) => row[0] === id)![7];
    expect(note('M-2003')).to.equal("'=Sammelposition");
    expect(note('M-2005')).to.equal("'-10% Rabatt");
    expect(note('M-2007')).to.equal("'+Zuschlag Notfall");
    expect(note('M-2009')).to.equal("'@Lager West");
    expect(note('M-2017')).to.equal("'=SUMME(A1:A3)");
    expect(note('M-2019')).to.equal("'\tTabulator am Anfang");
    expect(note('M-2011')).to.equal('Enthält Latex, "puderfrei"');
    expect(note('M-2013')).to.equal('Zeile 1\nZeile 2');
    expect(note('M-2014')).to.equal(''); // NULL
    expect(res.text).to.include(`,Implant,1180,1,"'=Sammelposition"\r\n`);
    const stored = kls.prepare('SELECT * FROM dim_materials').raw(true).all() as unknown[][];
    expect(res.text).to.equal(['material_id,name_de,name_fr,name_en,category,unit_price,is_implant,note', ...stored.map((row) => row.map(csvField).join(','))].join('\r\n') + '\r\n');
  });

  it('filters with q over the text columns, case-insensitively, with LIKE wildcards taken literally', async () => {
    expect(column(await csv('materials', 'q=LAGER'), 'material_id')).to.deep.equal(['M-2009']);
    const withPercent = (kls.prepare('SELECT * FROM dim_materials').all() as Record<string, unknown>[])
      .filter((row) => Object.values(row).some((value) => typeof value === 'string' && value.includes('%')))
      .map((row) => row['material_id']);
    expect(withPercent.length).to.be.within(1, 499);
    expect(column(await csv('materials', 'q=%25'), 'material_id')).to.deep.equal(withPercent);
    expect(await csv('materials', 'q=_')).to.have.length(1); // no text holds an underscore: `_` is no wildcard
    expect(column(await csv('cost_centres', 'q=%C3%84RZTLICHER'), 'cost_centre_id')).to.deep.equal(['KST-4100', 'KST-4200', 'KST-4300']);
    expect(await csv('cost_centres', 'q=no-such-text')).to.deep.equal([['cost_centre_id', 'name_en', 'name_de', 'name_fr', 'department', 'active', 'budget_chf']]);
  });

  it('filters f.<column> by equality: booleans as true/false or 1/0, numbers, text, empty for NULL', async () => {
    const active = await csv('cost_centres', 'f.active=true');
    expect(await csv('cost_centres', 'f.active=1')).to.deep.equal(active);
    const inactive = column(await csv('cost_centres', 'f.active=false'), 'cost_centre_id');
    expect(inactive).to.have.length(kls.prepare('SELECT count(*) FROM dim_cost_centres WHERE active = 0').pluck().get() as number);
    expect(inactive.length + active.length - 1).to.equal(kls.prepare('SELECT count(*) FROM dim_cost_centres').pluck().get());
    expect(column(await csv('cost_centres', 'f.department=Surgery&f.active=true'), 'department').every((d) => d === 'Surgery')).to.equal(true);
    expect(column(await csv('materials', 'f.unit_price=1180'), 'material_id')).to.deep.equal(['M-2003']);
    const implants = await csv('materials', 'f.is_implant=true&f.category=Implant');
    expect(column(implants, 'is_implant').every((v) => v === '1')).to.equal(true);
    expect(implants.length - 1).to.equal(kls.prepare("SELECT count(*) FROM dim_materials WHERE is_implant = 1 AND category = 'Implant'").pluck().get());
    const noNote = await csv('materials', 'f.note=');
    expect(noNote.length - 1).to.equal(kls.prepare('SELECT count(*) FROM dim_materials WHERE note IS NULL').pluck().get());
  });

  it('filters with filter=<column>:<value> as with f.<column>=<value>, repeated and combined with the other form', async () => {
    expect(await csv('cost_centres', 'filter=active:true')).to.deep.equal(await csv('cost_centres', 'f.active=true'));
    const both = await csv('cost_centres', 'filter=department:Surgery&filter=active:1');
    expect(both).to.deep.equal(await csv('cost_centres', 'f.department=Surgery&f.active=true'));
    expect(both.length).to.be.above(1);
    expect(await csv('cost_centres', 'filter=department%3ASurgery&f.active=true')).to.deep.equal(both);
    // split at the first colon: the value may hold colons, and an empty value matches NULL
    const withColon = await csv('materials', 'filter=note:Zeile%201%3A%20x');
    expect(withColon).to.have.length(1);
    const noNote = await csv('materials', 'filter=note:');
    expect(noNote.length - 1).to.equal(kls.prepare('SELECT count(*) FROM dim_materials WHERE note IS NULL').pluck().get());
    expect(column(await csv('materials', 'filter=unit_price:1180'), 'material_id')).to.deep.equal(['M-2003']);
  });

  it('answers 400 problem for a filter value without <column>:, an unknown column, a column filtered twice, a bad value or too many values', async () => {
    const cases: [string, RegExp][] = [
      ['filter=active', /must match pattern|must be <column>:<value>/],
      ['filter=Active:1', /must match pattern|must be <column>:<value>/],
      ['filter=no_such_column:1', /names no column of cost_centres/],
      ['filter=active:yes', /must be an integer, or true\/false/],
      ['filter=active:1&filter=active:0', /filters column active a second time/],
      ['filter=active:1&f.active=1', /filters column active a second time/],
      [`filter=department:${'x'.repeat(201)}`, /is longer than 200 characters/],
      [Array.from({ length: 65 }, (_, i) => `filter=c${i}:1`).join('&'), /more than 64|at most 64|must NOT have more than 64 items/],
    ];
    for (const [query, message] of cases) {
      const res = await call(server.url, exportUrl('cost_centres', query));
      expectProblem(res, 400);
      const issues = res.body.errors as { in: string; name: string; message: string }[];
      expect(issues.some((issue) => issue.in === 'query' && /^f\.|^filter/.test(issue.name) && message.test(issue.message)), `${query.slice(0, 60)}: ${JSON.stringify(issues)}`).to.equal(true);
    }
  });

  it('sorts by a column in either order, ties in table order', async () => {
    const desc = column(await csv('cost_centres', 'sort=budget_chf&order=desc'), 'budget_chf').map(Number);
    expect(desc).to.deep.equal([...desc].sort((a, b) => b - a));
    const asc = column(await csv('cost_centres', 'sort=name_en'), 'name_en');
    expect(asc).to.deep.equal([...asc].sort());
    const byFlag = column(await csv('materials', 'sort=is_implant&order=desc'), 'material_id');
    const implants = kls.prepare('SELECT material_id FROM dim_materials WHERE is_implant = 1 ORDER BY rowid').pluck().all();
    expect(byFlag.slice(0, implants.length)).to.deep.equal(implants);
  });

  it('answers 400 problem for an unknown sort or filter column, a value the column cannot hold, a repeated filter or another parameter', async () => {
    const cases: [string, string][] = [
      ['sort=no_such_column', 'sort'],
      ['f.no_such_column=1', 'f.no_such_column'],
      ['f.active=yes', 'f.active'],
      ['f.budget_chf=lots', 'f.budget_chf'],
      ['f.active=1&f.active=0', 'f.active'],
      ['unknown_parameter=1', 'unknown_parameter'],
      ['f.Bad-Name=1', 'f.Bad-Name'],
    ];
    for (const [query, name] of cases) {
      const res = await call(server.url, exportUrl('cost_centres', query));
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { name: string }) => e.name), query).to.include(name);
    }
    expectProblem(await call(server.url, exportUrl('cost_centres', 'order=sideways')), 400);
    expectProblem(await call(server.url, exportUrl('cost_centres', 'sort=drop%20table')), 400);
    expectProblem(await call(server.url, exportUrl('cost_centres', `f.note=${'x'.repeat(201)}`)), 400);
  });

  it('answers 431 problem when the filters make the request line longer than 16 KiB, and still serves the next request', async () => {
    // 64 filters of 400 characters, within the contract's limits, percent-encoded beyond the request line's
    const filters = Array.from({ length: 64 }, (_, i) => `filter=${encodeURIComponent(`department:${'ü'.repeat(380)}${i}`)}`).join('&');
    const res = await call(server.url, `/kantonsspital/dimensions/cost_centres/export?${filters}`);
    expectProblem(res, 431);
    expect(res.body).to.include({ type: 'https://analytics-desk.example/problems/request-header-fields-too-large', status: 431 });
    expect((await call(server.url, exportUrl('cost_centres'))).status).to.equal(200);
  });

  it('answers 404 for an unknown entity or tenant, 409 for an ambiguous tenant, 503 for an unusable one', async () => {
    const entity = await call(server.url, exportUrl('no_such_dimension'));
    expectProblem(entity, 404);
    expect(entity.body.detail).to.include('no_such_dimension');
    expectProblem(await call(server.url, '/nowhere/dimensions/cost_centres/export'), 404);
    expectProblem(await call(server.url, '/kantonsspital/dimensions/Bad-Entity/export'), 400);
    expectProblem(await call(server.url, '/rehaklinik/dimensions/cost_centres/export'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/dimensions/cost_centres/export'), 503);
  });
});
