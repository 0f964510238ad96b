import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { visibleText } from '../../src/http/request-outcome.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Characters a terminal or log viewer acts on or hides: none may reach an audit line as they are. */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe('client text in audit lines', function () {
  this.timeout(30_000);
  let server: TestServer;
  const raw: string[] = [];
  const audit = () => raw.map((line) => JSON.parse(line) as Record<string, any>).filter((l) => l.audit === true);
  before(async () => {
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (raw.push(String(chunk)), done()) }));
    server = await startTestServer({ log });
  });
  after(async () => server.close());

  it('shows control and formatting characters visibly in the tenant and the IDs, never as they are', async () => {
    const seen = audit().length;
    const tenant = 'kanton\u001b[2J\u001b[31mspital\r\n{"audit":true}\u0000\u007f\u0085\u202e';
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: { tenant, entity: 'cost_centres', name: 'n', params: {} } }), 400);
    expectProblem(await call(server.url, `/kantonsspital/api/notes/${encodeURIComponent('x\u001b]0;owned\u0007')}`, { method: 'DELETE' }), 400);
    expectProblem(await call(server.url, `/api/refresh?scope=${encodeURIComponent('all\nscope=pack')}`, { method: 'POST' }), 400);
    const lines = audit().slice(seen);
    expect(lines.map((l) => l.operationId)).to.deep.equal(['createView', 'deleteNote', 'refreshStore']);
    expect(lines[0]!.tenant).to.equal('kanton␛[2J␛[31mspital␍␊{"audit":true}␀␡<U+0085><U+202E>');
    expect(lines[1]!.ids.note_id).to.equal('x␛]0;owned␇');
    expect(lines[2]!.ids.scope).to.equal('all␊scope=pack');
    for (const line of lines) expect(JSON.stringify(line)).not.to.match(INVISIBLE);
  });

  it('keeps ordinary text as it is, accents and other scripts included', () => {
    for (const text of ['ost.kantonsspital', 'Hôpital cantonal', 'Zürich – Süd', '東京', 'a\\u001b']) expect(visibleText(text)).to.equal(text);
    expect(visibleText('\t\u2028\ufeff\u200b')).to.equal('␉<U+2028><U+FEFF><U+200B>');
  });
});
