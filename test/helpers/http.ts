import { expect } from 'chai';

/** fetch + parsed JSON body (when the response is JSON). */
export async function call(
  base: string,
  pathAndQuery: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const { json, ...rest } = init;
  const request: RequestInit = { ...rest };
  if (json !== undefined) {
    request.body = JSON.stringify(json);
    request.headers = { 'content-type': 'application/json', ...(rest.headers as Record<string, string> | undefined) };
  }
  const response = await fetch(base + pathAndQuery, request);
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const body = /json/.test(type) && text !== '' ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts an RFC 9457 problem response with `status`. */
export function expectProblem(response: { status: number; headers: Headers; body: any }, status: number): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(response.body).to.include.keys('type', 'title', 'status', 'detail');
  expect(response.body.status).to.equal(status);
  expect(response.body.type).to.match(/^https:\/\/analytics-desk\.example\/problems\//);
  expect(JSON.stringify(response.body)).not.to.match(/at .*\.(ts|js):\d+/);
}
