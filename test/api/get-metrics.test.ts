import { expect } from 'chai';
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../../src/config.js';
import { contractOperations } from '../helpers/contract.js';
import { parseCsv } from '../helpers/csv.js';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { call, expectProblem } from '../helpers/http.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { parseExposition, scrape, type Exposition } from '../helpers/metrics.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { demoKlsFile, klsVariant, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSignInServer } from '../helpers/sign-in.js';
import { startStoreModeServer, waitForSync } from '../helpers/store-mode.js';

const MEDIA_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const OWN_METRICS: Record<string, string> = {
  http_request_duration_seconds: 'histogram',
  search_result_cache_hits_total: 'counter',
  search_result_cache_misses_total: 'counter',
  object_store_downloaded_bytes_total: 'counter',
  dimension_export_rows_total: 'counter',
  narrative_calls_total: 'counter',
  app_db_errors_total: 'counter',
  tenant_files_closed_total: 'counter',
  tenant_files_open: 'gauge',
};
const OUTCOMES = ['ok', 'api_error', 'timeout', 'unreachable', 'no_text', 'failed'];
const KEY = 'sk-ant-metrics-test';
const BULK_ROWS = 25_000;
const finding = { ...DEMO_FINDING, evidence: { case_id: 'C-100001' } };

/** Requests measured for `operation`, `method` and `status` (0 when the series does not exist yet). */
const requests = (metrics: Exposition, operation: string, method: string, status: number): number =>
  metrics.value('http_request_duration_seconds_count', { operation, method, status: String(status) }) ?? 0;
const counter = (metrics: Exposition, name: string, labels?: Record<string, string>): number => metrics.value(name, labels) ?? 0;

describe('GET /metrics', function () {
  this.timeout(60_000);
  let anthropic: FakeAnthropic;
  let data: ReturnType<typeof dataDirWith>;
  let server: TestServer;

  before(async () => {
    anthropic = await startFakeAnthropic(KEY);
    // a dimension of several rowid blocks, encoded from SQLite's JSON lines
    const rows = Array.from({ length: BULK_ROWS }, (_, i) => ({ bulk_id: i + 1, label: `row ${i + 1}` }));
    data = dataDirWith({
      tenants: {
        'lab.bulk': {
          dimensions: { columns: 'entity TEXT PRIMARY KEY, table_name TEXT, label_en TEXT, label_de TEXT, label_fr TEXT', rows: [{ entity: 'bulk', table_name: 'dim_bulk', label_en: 'Bulk' }] },
          dim_bulk: { columns: 'bulk_id INTEGER PRIMARY KEY, label TEXT', rows },
        },
      },
    });
    server = await startTestServer({
      dataDir: data.dir,
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_MODEL: 'claude-test-model', NARRATIVE_TIMEOUT_MS: '400', NARRATIVE_PER_MINUTE: '0' },
    });
  });
  after(async () => {
    await server.close();
    await anthropic.close();
    data.remove();
  });

  it('serves every metric in the Prometheus text format with HELP and TYPE, no-store, and the build label', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(MEDIA_TYPE);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('x-build-label')).to.match(/^v\d+\.\d+\.\d+ \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    const metrics = parseExposition(await res.text());
    for (const [name, type] of Object.entries(OWN_METRICS)) {
      expect(metrics.types.get(name), name).to.equal(type);
      expect(metrics.help.get(name), name).to.be.a('string').with.length.above(10);
    }
    // prom-client's Node.js and process defaults, on this server's registry
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds']) {
      expect(metrics.types.has(name), name).to.equal(true);
    }
    // labelled counters exist from the start, at 0, so that rates work from the first scrape
    for (const outcome of OUTCOMES) expect(metrics.value('narrative_calls_total', { outcome }), outcome).to.equal(0);
    for (const kind of ['busy', 'unreachable', 'other']) expect(metrics.value('app_db_errors_total', { kind }), kind).to.be.a('number');
    expect(metrics.value('object_store_downloaded_bytes_total')).to.equal(0);
  });

  it('measures each request under its operationId, errors included, and requests of no operation under "unmatched"', async () => {
    const before = await scrape(server.url);
    expect((await call(server.url, '/health')).status).to.equal(200);
    expectProblem(await call(server.url, '/api/db-status/nowhere'), 404);
    expectProblem(await call(server.url, '/api/db-status/..%2Fx'), 400);
    expectProblem(await call(server.url, '/no/such/route'), 404);
    expectProblem(await call(server.url, '/health', { method: 'POST' }), 405);
    const after = await scrape(server.url);
    const delta = (operation: string, method: string, status: number) => requests(after, operation, method, status) - requests(before, operation, method, status);
    expect(delta('getHealth', 'GET', 200)).to.equal(1);
    expect(delta('getDbStatus', 'GET', 404)).to.equal(1);
    expect(delta('getDbStatus', 'GET', 400)).to.equal(1);
    expect(delta('unmatched', 'GET', 404)).to.equal(1);
    expect(delta('unmatched', 'POST', 405)).to.equal(1);
    // histogram shape: the +Inf bucket holds every observation, the sum is a positive duration
    const labels = { operation: 'getHealth', method: 'GET', status: '200' };
    expect(after.value('http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).to.equal(after.value('http_request_duration_seconds_count', labels));
    expect(after.value('http_request_duration_seconds_sum', labels)).to.be.above(0).and.below(60);
    // the label never carries a path: operationIds of the contract or "unmatched" only
    const known = new Set([...contractOperations().map((op) => op.operationId), 'unmatched']);
    const operations = new Set(after.samples.filter((s) => s.name === 'http_request_duration_seconds_count').map((s) => s.labels.operation));
    expect([...operations].filter((op) => !known.has(op!))).to.deep.equal([]);
  });

  it('counts two result-cache misses, then a hit, for three identical searches (a result is kept from its second search)', async () => {
    const before = await scrape(server.url);
    for (let i = 0; i < 3; i += 1) expect((await call(server.url, '/api/jumpbar?tenant=kantonsspital&q=fallp')).status).to.equal(200);
    const after = await scrape(server.url);
    expect(counter(after, 'search_result_cache_misses_total') - counter(before, 'search_result_cache_misses_total')).to.equal(2);
    expect(counter(after, 'search_result_cache_hits_total') - counter(before, 'search_result_cache_hits_total')).to.equal(1);
    expect(requests(after, 'getJumpbar', 'GET', 200) - requests(before, 'getJumpbar', 'GET', 200)).to.equal(3);
  });

  it('counts the CSV data rows of a small export and of one of several rowid blocks', async () => {
    const rowsOf = async (url: string): Promise<number> => {
      const res = await call(server.url, url);
      expect(res.status).to.equal(200);
      return parseCsv(res.text).length - 1;
    };
    const before = await scrape(server.url);
    const small = await rowsOf('/kantonsspital/dimensions/cost_centres/export');
    expect(small).to.be.above(0);
    const middle = await scrape(server.url);
    expect(counter(middle, 'dimension_export_rows_total') - counter(before, 'dimension_export_rows_total')).to.equal(small);
    expect(await rowsOf('/lab.bulk/dimensions/bulk/export')).to.equal(BULK_ROWS);
    const after = await scrape(server.url);
    expect(counter(after, 'dimension_export_rows_total') - counter(middle, 'dimension_export_rows_total')).to.equal(BULK_ROWS);
  });

  it('counts the open tenant files and those closed to stay within TENANT_HANDLES_MAX', async () => {
    const bounded = await startTestServer({ env: { TENANT_HANDLES_MAX: '1' } });
    try {
      const tenants = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];
      for (const tenant of tenants) {
        expect((await call(bounded.url, `/api/jumpbar?mode=search&tenant=${tenant}&q=kosten`)).status).to.equal(200);
        expect((await call(bounded.url, `/api/jumpbar?mode=summary&tenant=${tenant}`)).status).to.equal(200);
      }
      const metrics = await scrape(bounded.url);
      expect(metrics.value('tenant_files_open', { kind: 'kls' })).to.equal(bounded.deps.tenants.openHandles).and.equal(1);
      expect(metrics.value('tenant_files_open', { kind: 'search_index' })).to.equal(bounded.deps.searchIndexes.openIndexes).and.at.most(1);
      expect(metrics.value('tenant_files_closed_total', { kind: 'kls' })).to.equal(bounded.deps.tenants.evictedHandles).and.at.least(tenants.length - 1);
      expect(metrics.value('tenant_files_closed_total', { kind: 'search_index' })).to.be.at.least(tenants.length - 1);
    } finally {
      await bounded.close();
    }
    // the default bound of this suite's server is far above its tenants: nothing closed
    const metrics = await scrape(server.url);
    for (const kind of ['kls', 'search_index']) expect(metrics.value('tenant_files_closed_total', { kind }), kind).to.equal(0);
  });

  it('counts narrative calls by outcome, and no call for a narrative refused before it', async () => {
    const before = await scrape(server.url);
    const narrate = () => call(server.url, '/api/explain-narrative', { method: 'POST', json: { tenant: 'kantonsspital', finding } });
    anthropic.queue.push({ kind: 'text', text: 'One. Two. Three.' });
    expect((await narrate()).status).to.equal(200);
    anthropic.queue.push({ kind: 'status', status: 529, type: 'overloaded_error', message: 'Overloaded' });
    expectProblem(await narrate(), 502);
    anthropic.queue.push({ kind: 'text', text: '' });
    expectProblem(await narrate(), 502);
    anthropic.queue.push({ kind: 'hang' });
    expectProblem(await narrate(), 502);
    expectProblem(await call(server.url, '/api/explain-narrative', { method: 'POST', json: { tenant: 'nowhere', finding } }), 404);
    const after = await scrape(server.url);
    const deltas = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, counter(after, 'narrative_calls_total', { outcome }) - counter(before, 'narrative_calls_total', { outcome })]));
    expect(deltas).to.deep.equal({ ok: 1, api_error: 1, timeout: 1, unreachable: 0, no_text: 1, failed: 0 });
  });

  it('keeps the counters of each server apart (one registry per server, none global)', async () => {
    const other = await startTestServer();
    try {
      expect((await call(other.url, '/api/jumpbar?tenant=kantonsspital&q=fallp')).status).to.equal(200);
      const mine = await scrape(server.url);
      const theirs = await scrape(other.url);
      expect(counter(theirs, 'search_result_cache_misses_total')).to.equal(1);
      expect(counter(theirs, 'dimension_export_rows_total')).to.equal(0);
      expect(counter(mine, 'dimension_export_rows_total')).to.be.above(BULK_ROWS);
      expect(requests(theirs, 'getHealth', 'GET', 200)).to.equal(0);
    } finally {
      await other.close();
    }
  });
});

describe('GET /metrics with sign-in', () => {
  let provider: OidcProvider;
  before(async () => {
    provider = await OidcProvider.start();
  });
  after(async () => provider.close());

  it('is public, and measures a 401 under the operation that refused it', async () => {
    const server = await startSignInServer(provider);
    try {
      expect((await call(server.url, '/api/identity')).status).to.equal(401);
      const metrics = await scrape(server.url);
      expect(requests(metrics, 'getIdentity', 'GET', 401)).to.equal(1);
    } finally {
      await server.close();
    }
  });
});

describe('GET /metrics in KLS store mode', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  before(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
  });
  after(async () => store.close());

  it('counts the bytes received from the object store, at the start and on a refresh', async () => {
    store.resetTraffic();
    const server = await startStoreModeServer(store);
    try {
      await waitForSync(server);
      const demoBytes = ['ost/kantonsspital', 'ost/rehaklinik', 'west/hopital-cantonal', 'west/rehaklinik']
        .map((t) => fs.statSync(demoKlsFile(t.split('/')[0]!, t.split('/')[1]!)).size)
        .reduce((a, b) => a + b, 0);
      const first = await scrape(server.url);
      expect(counter(first, 'object_store_downloaded_bytes_total')).to.equal(demoBytes).and.to.equal(store.traffic.bytes);
      const variant = klsVariant('ost', 'rehaklinik', 'Rehaklinik (metrics)');
      await store.put('ost/rehaklinik/kls.sqlite', variant);
      expect((await call(server.url, '/api/refresh?scope=tenant&tenant=ost.rehaklinik&wait=true')).status).to.equal(200);
      const second = await scrape(server.url);
      expect(counter(second, 'object_store_downloaded_bytes_total') - demoBytes).to.equal(fs.statSync(variant).size);
    } finally {
      await server.close();
    }
  });
});

describe('GET /metrics with METRICS=off', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { METRICS: 'off' } });
  });
  after(async () => server.close());

  it('answers 404 problem exactly as an unknown route does, and records nothing', async () => {
    expect((await call(server.url, '/api/jumpbar?tenant=kantonsspital&q=fallp')).status).to.equal(200);
    const res = await call(server.url, '/metrics');
    expectProblem(res, 404);
    const unknown = await call(server.url, '/no/such/route');
    expect(res.body.type).to.equal(unknown.body.type).and.match(/route-not-found$/);
    expect(res.body.title).to.equal(unknown.body.title);
    expect(res.body.detail).to.equal('no route for GET /metrics');
    expect(server.deps.metrics.enabled).to.equal(false);
    expect(await server.deps.metrics.exposition()).to.equal('');
  });

  it('refuses a METRICS value other than on or off at start', () => {
    expect(() => loadConfig({ METRICS: 'yes' })).to.throw(ConfigError, /METRICS must be one of on, off \(got "yes"\)/);
    expect(loadConfig({}).metricsEnabled).to.equal(true);
    expect(loadConfig({ METRICS: 'off' }).metricsEnabled).to.equal(false);
  });
});
