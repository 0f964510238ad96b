import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { demoRepoBehaviours, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { call } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { klsVariant, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { listLoadedModules, loadedModules } from '../helpers/loaded-modules.js';
import { sharedData, spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { demoTemplateDir, tempDir } from '../helpers/server.js';
import { EXAMPLE_SIGNAL } from '../helpers/signals.js';
import { waitUntil } from '../helpers/store-mode.js';

const KEY = 'sk-ant-trace-test';
const SUB = 'trace-test-subject-0042';
const finding = { ...DEMO_FINDING, evidence: { case_id: 'C-100001', discharged_on: '2026-10-12', expected_amount: 18450.5 } };

/** A request sent with a traceparent of its own, and what came back. */
interface TracedRequest {
  traceId: string;
  /** The caller's span the request continues. */
  parentId: string;
  path: string;
  status: number;
  body: any;
}

/** The spans of one trace, with the request's span and the way up from any span to it. */
class Trace {
  constructor(readonly spans: ReceivedSpan[]) {}

  get request(): ReceivedSpan {
    const servers = this.spans.filter((s) => s.kind === SPAN_KIND.SERVER);
    expect(servers, 'server spans of the trace').to.have.length(1);
    return servers[0]!;
  }

  /** True when `span` descends from the request's span through spans of this trace. */
  underRequest(span: ReceivedSpan): boolean {
    const byId = new Map(this.spans.map((s) => [s.spanId, s]));
    for (let at = byId.get(span.parentSpanId); at !== undefined; at = byId.get(at.parentSpanId)) if (at === this.request) return true;
    return false;
  }

  /** The spans that match, each of them under the request's span. */
  children(match: (span: ReceivedSpan) => boolean): ReceivedSpan[] {
    const found = this.spans.filter((s) => s.kind !== SPAN_KIND.SERVER && match(s));
    for (const span of found) expect(this.underRequest(span), `${span.name} under the request span`).to.equal(true);
    return found;
  }
}

describe('without OTEL_* variables', function () {
  this.timeout(120_000);

  it('loads nothing of OpenTelemetry: a search, a view write, an export, a drift check and a signal validation', async () => {
    const data = sharedData('ads-trace-off-');
    const list = path.join(data.dir, 'loaded-modules.txt');
    const github = await startFakeGitHub(demoRepoBehaviours(path.join(data.dir, 'kls')));
    const anthropic = await startFakeAnthropic(KEY);
    const unset = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' };
    const server = await spawnServer({ ...data.env, ...unset, ...listLoadedModules(list), GITHUB_API_URL: github.url, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url });
    const openTelemetry = (files: string[]) => files.filter((file) => /[\\/]node_modules[\\/](@opentelemetry|import-in-the-middle|require-in-the-middle)[\\/]/.test(file));
    const ours = (files: string[], name: string) => files.some((file) => file.endsWith(path.join('src', name)));
    try {
      const answers = [
        await call(server.url, '/api/jumpbar?tenant=kantonsspital&q=fall'),
        await call(server.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Untraced view', params: {} } }),
        await call(server.url, '/kantonsspital/dimensions/cost_centres/export'),
        await call(server.url, '/api/drift?tenant=ost.kantonsspital'),
        await call(server.url, '/api/probe-builder/validate', { method: 'POST', json: { yaml: EXAMPLE_SIGNAL } }),
      ];
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200]);
      const loaded = loadedModules(list);
      expect(loaded.some((file) => file.includes(`${path.sep}@octokit${path.sep}`)), 'the list has the modules loaded on demand').to.equal(true);
      expect(ours(loaded, 'tracing.ts')).to.equal(true);
      expect(ours(loaded, path.join('telemetry', 'open-telemetry.ts'))).to.equal(false);
      expect(openTelemetry(loaded)).to.deep.equal([]);
      // The Anthropic SDK imports the OpenTelemetry API itself (a no-op without a tracer provider), nothing else.
      expect((await call(server.url, '/api/explain-narrative', { method: 'POST', json: { tenant: 'kantonsspital', finding } })).status).to.equal(200);
      await server.stop();
      const all = loadedModules(list);
      expect(all.length).to.be.greaterThan(loaded.length);
      expect(openTelemetry(all).every((file) => file.includes(path.join('node_modules', '@opentelemetry', 'api') + path.sep)), openTelemetry(all).join('\n')).to.equal(true);
      expect(ours(all, path.join('telemetry', 'open-telemetry.ts'))).to.equal(false);
    } finally {
      await server.stop();
      await Promise.all([github.close(), anthropic.close()]);
      data.remove();
    }
  });
});

describe('tracing at shutdown', function () {
  this.timeout(60_000);

  it('sends the spans not yet sent when the server stops (SIGTERM)', async () => {
    const data = sharedData('ads-trace-stop-');
    const receiver = await startOtlpReceiver();
    // a batch would wait a minute: only the shutdown sends it
    const server = await spawnServer({ ...data.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '60000' });
    try {
      const traceId = randomBytes(16).toString('hex');
      const res = await fetch(`${server.url}/api/identity`, { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
      expect(receiver.spans.filter((s) => s.traceId === traceId)).to.deep.equal([]);
      await server.stop();
      expect(await server.exited).to.equal(0);
      expect(receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name)).to.deep.equal(['getIdentity']);
    } finally {
      await server.stop();
      await receiver.close();
      data.remove();
    }
  });
});

for (const protocol of ['http/json', 'http/protobuf'] as const) {
  // One run without sign-in, one with: the caller's `sub` is hashed or, without sign-in, absent.
  const signIn = protocol === 'http/protobuf';

  describe(`traces over OTLP ${protocol}${signIn ? ', with sign-in' : ''}`, function () {
    this.timeout(120_000);
    const cache = tempDir('ads-trace-');
    let receiver: OtlpReceiver;
    let store: TestObjectStore;
    let github: FakeGitHub;
    let anthropic: FakeAnthropic;
    let provider: OidcProvider | null = null;
    let server: ServerProcess;
    let token = '';
    const logLines: Record<string, any>[] = [];

    before(async () => {
      const postgres = await sharedPostgres();
      receiver = await startOtlpReceiver();
      store = await startObjectStore();
      await store.uploadDemo();
      github = await startFakeGitHub(demoRepoBehaviours(path.join(demoTemplateDir(), 'kls')));
      anthropic = await startFakeAnthropic(KEY);
      const env: Record<string, string> = {
        ...store.env(),
        DATA_DIR: cache.dir,
        KLS_DIR: path.join(cache.dir, 'kls'),
        GIT_WORKSPACES_DIR: '',
        APP_DB_URL: await postgres.createDatabase('ads_trace'),
        GITHUB_API_URL: github.url,
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'ads-trace-test',
        // spans are sent 50 ms after they end instead of 5 s
        OTEL_BSP_SCHEDULE_DELAY: '50',
        // prom-client requires http when metrics are on, which would patch it even if tracing did not
        METRICS: 'off',
      };
      if (signIn) {
        provider = await OidcProvider.start();
        Object.assign(env, { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience });
        token = await provider.token({ sub: SUB, name: 'Anna Muster', tenants: ['*'], roles: ['admin'] });
      }
      server = await spawnServer(env);
      let pending = '';
      server.child.stdout!.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) logLines.push(JSON.parse(line) as Record<string, any>);
      });
      await waitUntil(async () => (await send('GET', '/api/store-status')).body?.initialized === true, 30_000, 'the first store sync');
    });
    after(async () => {
      await server?.stop();
      await Promise.all([receiver?.close(), store?.close(), github?.close(), anthropic?.close(), provider?.close()]);
      cache.remove();
    });

    async function send(method: string, pathAndQuery: string, json?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
      const init: RequestInit = { method, headers: { ...headers, ...(signIn ? { authorization: `Bearer ${token}` } : {}) } };
      if (json !== undefined) {
        init.body = JSON.stringify(json);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await fetch(server.url + pathAndQuery, init);
      const text = await res.text();
      return { status: res.status, body: /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
    }

    /** Sends the request as the caller's span `parentId` of a new trace. */
    async function traced(method: string, pathAndQuery: string, json?: unknown): Promise<TracedRequest> {
      const traceId = randomBytes(16).toString('hex');
      const parentId = randomBytes(8).toString('hex');
      const res = await send(method, pathAndQuery, json, { traceparent: `00-${traceId}-${parentId}-01` });
      return { traceId, parentId, path: pathAndQuery.split('?')[0]!, status: res.status, body: res.body };
    }

    /** The trace of `request` once `complete` holds for its spans (they arrive in batches). */
    async function traceOf(request: TracedRequest, complete: (trace: Trace) => boolean): Promise<Trace> {
      return receiver.until(
        () => {
          const trace = new Trace(receiver.spans.filter((s) => s.traceId === request.traceId));
          return trace.spans.some((s) => s.kind === SPAN_KIND.SERVER) && complete(trace) ? trace : undefined;
        },
        30_000,
        `the spans of ${request.path}`,
      );
    }

    /** Checks the request's span: its name, parent, route, status, tenant, caller; and the log line of the request. */
    async function expectRequestSpan(trace: Trace, request: TracedRequest, operationId: string, route: string, tenant: string | null): Promise<void> {
      const span = trace.request;
      expect(span.name).to.equal(operationId);
      expect(span.parentSpanId, 'continues the incoming traceparent').to.equal(request.parentId);
      expect(span.attributes['http.route']).to.equal(route);
      expect(span.attributes['http.response.status_code']).to.equal(request.status);
      expect(span.attributes['ads.tenant']).to.equal(tenant ?? undefined);
      expect(span.attributes['user.hash']).to.equal(signIn ? createHash('sha256').update(SUB).digest('hex') : undefined);
      expect(span.resource['service.name']).to.equal('ads-trace-test');
      expect(span.resource['service.instance.id']).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(trace.spans)).not.to.include(SUB);
      const line = await waitUntil(() => logLines.find((l) => l.msg === 'request' && l.trace_id === request.traceId), 10_000, `the log line of ${request.path}`);
      expect(line).to.include({ path: request.path, status: request.status, span_id: span.spanId });
    }

    it('PostgreSQL: the queries of a view write are spans of the createView request', async () => {
      const request = await traced('POST', '/api/views', { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Traced view', params: { sort: 'budget_chf' } });
      expect(request.status, JSON.stringify(request.body)).to.equal(200);
      const trace = await traceOf(request, (t) => t.spans.some((s) => s.scope === '@opentelemetry/instrumentation-pg'));
      await expectRequestSpan(trace, request, 'createView', '/api/views', 'ost.kantonsspital');
      const queries = trace.children((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.kind === SPAN_KIND.CLIENT);
      expect(queries.length).to.be.greaterThan(0);
      expect(queries.some((s) => /^INSERT INTO .*\$1/i.test(String(s.attributes['db.query.text'])))).to.equal(true);
    });

    it('GitHub: the compare call of a drift check is a span of the getDrift request', async () => {
      const request = await traced('GET', '/api/drift?tenant=ost.kantonsspital');
      expect(request.status, JSON.stringify(request.body)).to.equal(200);
      const toGitHub = (s: ReceivedSpan) => s.kind === SPAN_KIND.CLIENT && String(s.attributes['url.full']).startsWith(`${github.url}/repos/`);
      const trace = await traceOf(request, (t) => t.spans.some(toGitHub));
      await expectRequestSpan(trace, request, 'getDrift', '/api/drift', 'ost.kantonsspital');
      expect(trace.children(toGitHub)).to.have.length(1);
      const sent = github.requests[github.requests.length - 1]!;
      expect(sent.headers.traceparent, 'the call carries the trace on').to.match(new RegExp(`^00-${request.traceId}-`));
    });

    it('language model: the SDK call and its HTTP request are spans of the createNarrative request, without the prompt', async () => {
      const request = await traced('POST', '/api/explain-narrative', { tenant: 'kantonsspital', finding });
      expect(request.status, JSON.stringify(request.body)).to.equal(200);
      const toAnthropic = (s: ReceivedSpan) => s.kind === SPAN_KIND.CLIENT && String(s.attributes['url.full']).startsWith(`${anthropic.url}/v1/messages`);
      const fromSdk = (s: ReceivedSpan) => s.scope === 'com.anthropic.sdk.typescript';
      const trace = await traceOf(request, (t) => t.spans.some(toAnthropic) && t.spans.some(fromSdk));
      await expectRequestSpan(trace, request, 'createNarrative', '/api/explain-narrative', 'ost.kantonsspital');
      const [call] = trace.children(fromSdk);
      const [attempt] = trace.children(toAnthropic);
      expect(attempt!.parentSpanId, 'the HTTP request under the SDK call').to.equal(call!.spanId);
      expect(JSON.stringify(trace.spans)).not.to.include('C-100001');
      expect(anthropic.requests[anthropic.requests.length - 1]!.headers.traceparent).to.equal(`00-${request.traceId}-${attempt!.spanId}-01`);
    });

    it('object store and index build: a refresh downloads the changed file and builds its index inside the refreshStore trace', async () => {
      await store.put('ost/kantonsspital/kls.sqlite', klsVariant('ost', 'kantonsspital', 'Kantonsspital Ost (traced)'));
      const request = await traced('POST', '/api/refresh', { scope: 'tenant', tenant: 'ost.kantonsspital', wait: true });
      expect(request.status, JSON.stringify(request.body)).to.equal(200);
      expect(request.body.status).to.equal('completed');
      const storePort = String(new URL(store.endpoint).port);
      const toStore = (s: ReceivedSpan) => s.kind === SPAN_KIND.CLIENT && s.scope === '@opentelemetry/instrumentation-http' && String(s.attributes['server.port']) === storePort;
      const build = (s: ReceivedSpan) => s.name === 'search index build';
      const trace = await traceOf(request, (t) => t.spans.some(toStore) && t.spans.some(build));
      await expectRequestSpan(trace, request, 'refreshStore', '/api/refresh', 'ost.kantonsspital');
      const calls = trace.children(toStore);
      expect(calls.map((s) => s.attributes['http.request.method'])).to.include('GET');
      expect(calls.length, 'a list and a download at least').to.be.at.least(2);
      expect(trace.children(build)).to.have.length(1);
    });

    it('export stream: a dimension export is one span from its first chunk to its end, with its row count; no query value is recorded', async () => {
      const request = await traced('GET', '/kantonsspital/dimensions/cost_centres/export?q=Kardio&sort=budget_chf');
      expect(request.status).to.equal(200);
      const rows = String(request.body).trim().split('\n').length - 1;
      const trace = await traceOf(request, (t) => t.spans.some((s) => s.name === 'export stream'));
      await expectRequestSpan(trace, request, 'exportDimension', '/{tenant}/dimensions/{entity}/export', 'ost.kantonsspital');
      const [stream] = trace.children((s) => s.name === 'export stream');
      expect(stream!.attributes['export.rows']).to.equal(rows);
      expect(stream!.status, 'not failed').to.equal(0);
      expect(trace.request.attributes['url.query']).to.equal('q=REDACTED&sort=REDACTED');
      expect(JSON.stringify(trace.spans)).not.to.match(/Kardio|budget_chf/);
    });

    it('signal tool: a validation runs the checker inside a span of the validateSignalDefinition request', async () => {
      const request = await traced('POST', '/api/probe-builder/validate', { yaml: EXAMPLE_SIGNAL, tenant: 'ost.kantonsspital' });
      expect(request.status, JSON.stringify(request.body)).to.equal(200);
      const trace = await traceOf(request, (t) => t.spans.some((s) => s.name === 'signal tool'));
      await expectRequestSpan(trace, request, 'validateSignalDefinition', '/api/probe-builder/validate', 'ost.kantonsspital');
      const [tool] = trace.children((s) => s.name === 'signal tool');
      expect(tool!.attributes['signal.tool']).to.equal('checker');
    });

    it('a request without a traceparent starts a trace of its own; one that matches no route keeps the method as its name', async () => {
      const before = new Set(receiver.spans.map((s) => s.traceId));
      const res = await send('GET', '/api/no-such-operation');
      expect(res.status).to.equal(404);
      const span = await receiver.until(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/api/no-such-operation'), 30_000, 'the span of the unmatched request');
      expect(before.has(span.traceId)).to.equal(false);
      expect(span.parentSpanId).to.equal('');
      expect(span.name).to.equal('GET');
      expect(span.attributes['http.route']).to.equal(undefined);
      expect(receiver.exports.every((e) => e.contentType === (protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'))).to.equal(true);
    });
  });
}
