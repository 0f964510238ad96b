import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { DEMO_FINDING, presentedKey, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'sk-ant-test-secret-4711';
const finding = { ...DEMO_FINDING, evidence: { case_id: 'C-100001', discharged_on: '2026-10-12', expected_amount: 18450.5 } };
const narrate = (url: string, body: unknown) => call(url, '/api/explain-narrative', { method: 'POST', json: body });

describe('POST /api/explain-narrative', () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;
  const lastRequest = () => anthropic.requests[anthropic.requests.length - 1]!;

  before(async () => {
    anthropic = await startFakeAnthropic(KEY);
    server = await startTestServer({
      // this file asks for more narratives than the default limit of 10 per minute (the limit has its own tests)
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_MODEL: 'claude-test-model', NARRATIVE_TIMEOUT_MS: '400', NARRATIVE_PER_MINUTE: '0' },
    });
  });
  after(async () => {
    await server.close();
    await anthropic.close();
  });

  it('answers the narrative and the model name the API reports', async () => {
    anthropic.queue.push({ kind: 'text', text: 'One. Two. Three.', model: 'claude-test-model-20261101' });
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ narrative: 'One. Two. Three.', model: 'claude-test-model-20261101' });
    const sent = lastRequest();
    expect(sent.method).to.equal('POST');
    expect(sent.url).to.equal('/v1/messages');
    expect(presentedKey(sent.headers)).to.equal(KEY);
    expect(sent.headers['anthropic-version']).to.be.a('string');
    expect(sent.body.model).to.equal('claude-test-model');
    expect(sent.body.max_tokens).to.be.a('number');
  });

  it('sends the finding, the Gold attributes and the signal in the language asked for', async () => {
    const res = await narrate(server.url, { tenant: 'ost.kantonsspital', finding, locale: 'de' });
    expect(res.status).to.equal(200);
    const { system, messages } = lastRequest().body;
    expect(system).to.match(/3 to 4 complete sentences/).and.match(/German/).and.match(/locale "de"/);
    const prompt: string = messages[0].content;
    expect(messages[0].role).to.equal('user');
    // the finding
    for (const fact of ['"entity_id": "C-100001"', '"month": "2026-10"', '"severity": "high"', '"money_at_risk_chf": 18450.5', 'discharged_on']) {
      expect(prompt).to.include(fact);
    }
    // the signal's name and description, in German
    expect(prompt).to.include('Entlassene, noch nicht abgerechnete Fälle');
    expect(prompt).to.include('Abgeschlossene oder entlassene Fälle ohne Abrechnung');
    // the entity's Gold attributes: its case row and its cost lines, labelled in German
    expect(prompt).to.include('"drg_code": "I47B"').and.include('"label": "Fälle"');
    expect(prompt).to.include('"source": "gold_case_costs"').and.include('"cost_type": "Physicians"');
  });

  it('writes French when asked and English by default', async () => {
    await narrate(server.url, { tenant: 'kantonsspital', finding, locale: 'fr' });
    expect(lastRequest().body.system).to.match(/French/);
    expect(lastRequest().body.messages[0].content).to.include('Cas sortis non encore facturés');
    await narrate(server.url, { tenant: 'kantonsspital', finding });
    expect(lastRequest().body.system).to.match(/English/);
    expect(lastRequest().body.messages[0].content).to.include('Discharged cases not yet billed');
  });

  it('takes the signal from its AFS definition when the tenant file does not list it', async () => {
    const yaml = 'probe_id: probe_afs_only\ntype: signal\nname:\n  en: Only in the AFS\n  de: Nur im AFS\ndescription:\n  en: Defined in a YAML file only.\n';
    fs.writeFileSync(path.join(server.dataDir, 'afs', 'signals', 'probe_afs_only.yaml'), yaml);
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding: { ...finding, probe_id: 'probe_afs_only' } });
    expect(res.status).to.equal(200);
    expect(lastRequest().body.messages[0].content).to.include('Only in the AFS').and.include('Defined in a YAML file only.');
  });

  it('cuts an answer of more than 4 sentences to its first 4', async () => {
    const text = 'Der Fall C-100001 wurde am 12. Oktober 2026 entlassen.\n\nDr. Meier hat ihn nicht abgerechnet. Es fehlen CHF 18\'450.50. Das ist hoch. Satz fünf. Satz sechs.';
    anthropic.queue.push({ kind: 'text', text });
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding, locale: 'de' });
    expect(res.body.narrative).to.equal("Der Fall C-100001 wurde am 12. Oktober 2026 entlassen. Dr. Meier hat ihn nicht abgerechnet. Es fehlen CHF 18'450.50. Das ist hoch.");
  });

  it('answers 502 on an API error, with a problem that names no secret', async () => {
    anthropic.queue.push({ kind: 'status', status: 401, type: 'authentication_error', message: `invalid x-api-key ${KEY}` });
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding });
    expectProblem(res, 502);
    expect(res.body.detail).to.match(/HTTP 401 \(authentication_error\)/);
    expect(res.text).not.to.include(KEY).and.not.to.include('invalid x-api-key');
    anthropic.queue.push({ kind: 'status', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    expectProblem(await narrate(server.url, { tenant: 'kantonsspital', finding }), 502);
  });

  // the API never answers: only the server's own deadline can end the request (the test's timeout catches a hang)
  it('answers 502 when the API does not answer within NARRATIVE_TIMEOUT_MS', async () => {
    anthropic.queue.push({ kind: 'hang' });
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding });
    expectProblem(res, 502);
    expect(res.body.detail).to.match(/within 400 ms/);
  });

  it('answers 502 when the answer holds no text', async () => {
    anthropic.queue.push({ kind: 'text', text: '' });
    const res = await narrate(server.url, { tenant: 'kantonsspital', finding });
    expectProblem(res, 502);
    expect(res.body.detail).to.match(/no text/);
  });

  it('answers 400, 404 and 409 problems for a bad request or tenant', async () => {
    expectProblem(await narrate(server.url, { tenant: 'kantonsspital' }), 400);
    expectProblem(await narrate(server.url, { tenant: 'kantonsspital', finding, locale: 'it' }), 400);
    expectProblem(await narrate(server.url, { tenant: 'no-such-tenant', finding }), 404);
    expectProblem(await narrate(server.url, { tenant: 'rehaklinik', finding }), 409);
  });

  it('answers 503 with Retry-After when the tenant file cannot be opened', async () => {
    const dir = path.join(server.dataDir, 'kls', 'ost', 'kaputt');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'kls.sqlite'), 'not a database\n'.repeat(100));
    server.deps.tenants.scanLocal();
    const res = await narrate(server.url, { tenant: 'ost.kaputt', finding });
    expectProblem(res, 503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  });
});

describe('POST /api/explain-narrative without ANTHROPIC_API_KEY', () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;

  before(async () => {
    anthropic = await startFakeAnthropic(KEY);
    server = await startTestServer({ env: { ANTHROPIC_BASE_URL: anthropic.url } });
  });
  after(async () => {
    await server.close();
    await anthropic.close();
  });

  it('answers 503 before looking up the tenant, and calls no API', async () => {
    for (const tenant of ['kantonsspital', 'no-such-tenant', 'rehaklinik']) {
      const res = await narrate(server.url, { tenant, finding });
      expectProblem(res, 503);
      expect(res.body.type).to.match(/service-unavailable$/);
      expect(res.headers.get('retry-after')).to.equal(null);
    }
    expect(anthropic.requests).to.have.length(0);
  });

  it('still answers 400 first for an invalid request', async () => {
    expectProblem(await narrate(server.url, { tenant: 'kantonsspital', finding: { ...finding, severity: 'extreme' } }), 400);
  });
});
