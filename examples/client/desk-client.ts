// Helpers of the typed usage of the generated client (`npm run generate:client` writes it to build/client).
// test/client/generated-client.test.ts compiles these files with the generated client and runs them.
import { createClient, type Client } from '../../build/client/client/index.js';

/** Where the server is, the bearer token to send (with sign-in) and the fetch to send requests with. */
export interface Target {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
}

/** The contract's example values of one operation, by place (test/helpers/contract-examples.ts reads them). */
export interface OperationExample {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
}

/** Examples by operationId. */
export type ContractExamples = Readonly<Record<string, OperationExample>>;

/** A client for `target`; it sends the token only on operations the contract protects with `bearerAuth`. */
export function deskClient(target: Target): Client {
  return createClient({
    baseUrl: target.baseUrl,
    ...(target.token === undefined ? {} : { auth: () => target.token }),
    ...(target.fetch === undefined ? {} : { fetch: target.fetch }),
  });
}

/** Throws `message` unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

type Outcome = { data?: unknown; error?: unknown; response?: Response };

/** The body of a 2xx answer of `operationId`, typed as the contract declares it; else throws with status and problem. */
export async function ok<R extends Outcome>(operationId: string, pending: Promise<R>): Promise<NonNullable<R['data']>> {
  const result = await pending;
  if (result.data === undefined || result.data === null) {
    throw new Error(`${operationId} answered ${result.response?.status ?? 'nothing'}: ${JSON.stringify(result.error)}`);
  }
  return result.data as NonNullable<R['data']>;
}

/** The status and typed error body of an answer of `operationId` that must not be 2xx. */
export async function refused<R extends Outcome>(operationId: string, pending: Promise<R>): Promise<{ status: number; error: NonNullable<R['error']> }> {
  const result = await pending;
  if (result.error === undefined || result.error === null || result.response === undefined) {
    throw new Error(`${operationId} answered ${result.response?.status ?? 'nothing'} where an error was expected`);
  }
  return { status: result.response.status, error: result.error as NonNullable<R['error']> };
}

/**
 * The example request of `operationId` in the shape of its generated `…Data` type `D` (path, query, body). The
 * values are the contract's own examples, which `npm run lint:contract` checks against their schemas; the server
 * validates them again, so a value the client serialises wrongly comes back as 400.
 */
export function example<D extends { url: string }>(examples: ContractExamples, operationId: string): Omit<D, 'url'> {
  const found = examples[operationId];
  if (found === undefined) throw new Error(`openapi.yaml has no operation ${operationId}`);
  const request: unknown = {
    ...(Object.keys(found.path).length > 0 ? { path: found.path } : {}),
    ...(Object.keys(found.query).length > 0 ? { query: found.query } : {}),
    ...(found.body === undefined ? {} : { body: found.body }),
  };
  return request as Omit<D, 'url'>;
}

/** The first bytes of `blob`. */
export async function leadingBytes(blob: Blob, count: number): Promise<number[]> {
  return [...new Uint8Array(await blob.slice(0, count).arrayBuffer())];
}
