// A local HTTP server answering the Anthropic Messages API (`POST /v1/messages`) in its wire format, for tests and
// the Dredd run. It checks the key (`x-api-key`, or `Authorization: Bearer` as @anthropic-ai/sdk 1.x sends it) and
// `anthropic-version`, and records every request with its parsed body.
// `POST /__fake/next` (JSON body: a FakeAnthropicReply) queues the answer to the next message, so a process
// that did not start the fake (Dredd hooks) can script it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A finding of the demo data (kantonsspital's unbilled case C-100001), as `POST /api/explain-narrative` takes it. */
export const DEMO_FINDING = Object.freeze({
  probe_id: 'probe_unbilled_cases',
  entity_type: 'Case',
  entity_id: 'C-100001',
  time_bucket: '2026-10',
  severity: 'high',
  money_at_risk: 18450.5,
  evidence: {},
});

/** How the fake answers one message request. */
export type FakeAnthropicReply =
  /** 200 with one text block; `model` defaults to the model the request named. */
  | { kind: 'text'; text: string; model?: string }
  /** An API error in Anthropic's shape (`{type:"error", error:{type, message}}`). */
  | { kind: 'status'; status: number; type: string; message: string }
  /** Accepts the connection and never answers. */
  | { kind: 'hang' };

/** A request the fake received. */
export interface RecordedAnthropicRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A running fake Anthropic API. */
export interface FakeAnthropic {
  readonly url: string;
  readonly requests: RecordedAnthropicRequest[];
  /** Answers for the next requests, in order; when empty, `defaultReply` answers. */
  readonly queue: FakeAnthropicReply[];
  defaultReply: FakeAnthropicReply;
  close(): Promise<void>;
}

/** Four sentences, as a well-behaved model would answer. */
export const DEFAULT_NARRATIVE_TEXT =
  'Case C-100001 was discharged in October 2026 and has not been billed yet. ' +
  'The expected amount of CHF 18,450.50 puts it in the high-severity band. ' +
  'Its cost lines show physicians, nursing and implant costs already booked. ' +
  'Until an invoice is raised, this revenue is at risk.';

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_fake_${Date.now().toString(36)}`,
  });
  res.end(text);
}

/** The API key a request carries: `x-api-key`, else the bearer token of `Authorization`. */
export function presentedKey(headers: http.IncomingHttpHeaders): string | null {
  const direct = headers['x-api-key'];
  if (typeof direct === 'string') return direct;
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '');
  return bearer === null ? null : bearer[1]!;
}

const apiError = (res: http.ServerResponse, status: number, type: string, message: string): void =>
  send(res, status, { type: 'error', error: { type, message }, request_id: `req_fake_${status}` });

/** Starts the fake on 127.0.0.1 and an ephemeral port; requests must carry `apiKey` (see presentedKey). */
export async function startFakeAnthropic(apiKey: string): Promise<FakeAnthropic> {
  const requests: RecordedAnthropicRequest[] = [];
  const queue: FakeAnthropicReply[] = [];
  const hanging = new Set<http.ServerResponse>();
  const fake = {
    url: '',
    requests,
    queue,
    defaultReply: { kind: 'text', text: DEFAULT_NARRATIVE_TEXT } as FakeAnthropicReply,
    close: async () => {},
  };
  let counter = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      let body: any;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        return apiError(res, 400, 'invalid_request_error', 'body is not JSON');
      }
      if (req.method === 'POST' && req.url === '/__fake/next') {
        queue.push(body as FakeAnthropicReply);
        return send(res, 200, { queued: queue.length });
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/messages') return apiError(res, 404, 'not_found_error', 'Not found');
      if (presentedKey(req.headers) !== apiKey) return apiError(res, 401, 'authentication_error', 'invalid x-api-key');
      if (typeof req.headers['anthropic-version'] !== 'string') return apiError(res, 400, 'invalid_request_error', 'anthropic-version header is required');
      if (typeof body?.model !== 'string' || typeof body?.max_tokens !== 'number' || !Array.isArray(body?.messages)) {
        return apiError(res, 400, 'invalid_request_error', 'model, max_tokens and messages are required');
      }
      const reply = queue.shift() ?? fake.defaultReply;
      if (reply.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (reply.kind === 'status') return apiError(res, reply.status, reply.type, reply.message);
      counter += 1;
      return send(res, 200, {
        id: `msg_fake_${String(counter).padStart(6, '0')}`,
        type: 'message',
        role: 'assistant',
        model: reply.model ?? body.model,
        content: [{ type: 'text', text: reply.text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: Math.ceil(raw.length / 4), output_tokens: Math.ceil(reply.text.length / 4) },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
