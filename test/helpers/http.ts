import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import YAML from 'yaml';

/** The request a response answered, as `call` sent it: what expectProblem checks the contract by. */
export interface SentRequest {
  method: string;
  path: string;
}

/** fetch + parsed JSON body (when the response is JSON), and the request it answered. */
export async function call(
  base: string,
  pathAndQuery: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string; request: SentRequest }> {
  const { json, ...rest } = init;
  const request: RequestInit = { ...rest };
  if (json !== undefined) {
    request.body = JSON.stringify(json);
    request.headers = { 'content-type': 'application/json', ...(rest.headers as Record<string, string> | undefined) };
  }
  const url = new URL(base + pathAndQuery);
  const response = await fetch(url, request);
  const text = isEventStream(response) ? await eventStreamBeginning(response) : await response.text();
  const type = response.headers.get('content-type') ?? '';
  const body = /json/.test(type) && text !== '' ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, body, text, request: { method: (request.method ?? 'GET').toUpperCase(), path: url.pathname } };
}

/** Whether the answer is an event stream (which ends only when the server ends it). */
export const isEventStream = (response: Response): boolean => (response.headers.get('content-type') ?? '').startsWith('text/event-stream');

/** What an event stream begins with, up to its first empty line (its `retry:` and `id:`); the rest is cancelled. */
export async function eventStreamBeginning(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

/** A request with the `Host` header given (fetch cannot set one), parsed as `call` would. */
export function callWithHost(
  base: string,
  pathAndQuery: string,
  host: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; request: SentRequest }> {
  const url = new URL(base + pathAndQuery);
  const payload = init.json === undefined ? undefined : JSON.stringify(init.json);
  const headers: Record<string, string> = { ...init.headers, host };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        const body = /json/.test(res.headers['content-type'] ?? '') && text !== '' ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body, request: { method: init.method ?? 'GET', path: url.pathname } });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Asserts an RFC 9457 problem response with `status`. When the response says which request it answered (`call`
 * does), the status must also be one the contract declares as a problem for that operation; a request that
 * matches no operation may only get the answers of no route (404, 405, 421) and the 500 every operation has.
 */
export function expectProblem(response: { status: number; headers: Headers; body: any; request?: SentRequest }, status: number): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(response.body).to.include.keys('type', 'title', 'status', 'detail');
  expect(response.body.status).to.equal(status);
  expect(response.body.type).to.match(/^https:\/\/analytics-desk\.example\/problems\//);
  expect(JSON.stringify(response.body)).not.to.match(/at .*\.(ts|js):\d+/);
  if (response.request !== undefined) expectDeclaredProblem(response.request, status);
}

/** Asserts that openapi.yaml declares `status` as a problem of the operation `request` matches (see expectProblem). */
export function expectDeclaredProblem(request: SentRequest, status: number): void {
  if (status === 500) return;
  const operation = declaredOperations().find((op) => op.method === request.method && op.pattern.test(request.path));
  if (operation === undefined) {
    expect([404, 405, 421], `${request.method} ${request.path} matches no operation of openapi.yaml`).to.include(status);
    return;
  }
  expect(operation.problemStatuses, `${operation.operationId} (${request.method} ${request.path}) does not declare a ${status} problem in openapi.yaml`).to.include(status);
}

interface DeclaredOperation {
  operationId: string;
  method: string;
  pattern: RegExp;
  problemStatuses: number[];
}

let operations: DeclaredOperation[] | undefined;

/** The operations of openapi.yaml with the statuses each declares as application/problem+json (read once). */
function declaredOperations(): DeclaredOperation[] {
  if (operations !== undefined) return operations;
  const doc = YAML.parse(fs.readFileSync(path.join(process.cwd(), 'openapi.yaml'), 'utf8'));
  const responseOf = (response: any): any => (response?.$ref === undefined ? response : doc.components.responses[String(response.$ref).split('/').pop()!]);
  const found: DeclaredOperation[] = [];
  for (const [route, item] of Object.entries<Record<string, any>>(doc.paths)) {
    const pattern = new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
      const op = item[method];
      if (op === undefined) continue;
      const problemStatuses = Object.entries<any>(op.responses)
        .filter(([, response]) => responseOf(response)?.content?.['application/problem+json'] !== undefined)
        .map(([code]) => Number(code));
      found.push({ operationId: op.operationId, method: method.toUpperCase(), pattern, problemStatuses });
    }
  }
  // fewer templated segments first, as the router prefers them (`/{tenant}/taxonomies/cardinality/members`
  // before `/{tenant}/taxonomies/{taxonomy_id}/members`)
  const templated = (op: DeclaredOperation): number => op.pattern.source.split('[^/]+').length;
  operations = found.sort((a, b) => templated(a) - templated(b));
  return operations;
}

/**
 * Starts a download (an export) and stops reading it after its first bytes, so that it keeps running and holds its
 * slot until `close`. `localAddress` sends it from another loopback address (another client to the limits). A
 * connection broken later, say by an instance killed while the export runs, is not an error here.
 */
export async function heldExport(url: string, options: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<{ status: number; close: () => void }> {
  const from = options.localAddress === undefined ? {} : { localAddress: options.localAddress, agent: false };
  const request = http.get(url, { headers: options.headers ?? {}, ...from });
  request.on('error', () => undefined);
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
  if (response.statusCode === 200) {
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
  } else {
    response.resume();
  }
  return { status: response.statusCode!, close: () => request.destroy() };
}
