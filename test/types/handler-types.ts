// Type tests, compiled by `npm run typecheck` (part of `npm test`): every `@ts-expect-error` below must be an
// error, so each proves something the compiler refuses (style.md: "type tests that prove what must not compile").
import type { Handler, HandlerMap, Result } from '../../src/operations/contract.js';
import { getHealth } from '../../handlers/get-health.js';

/** A declared status with a body of the declared shape compiles. */
export const declared: Handler<'getDbStatus'> = async () => ({ status: 200, body: { generation: 1, mtime: '2026-11-01T06:00:00.000Z' } });

// @ts-expect-error 201 is not a status the contract declares for getDbStatus
export const undeclaredStatus: Handler<'getDbStatus'> = async () => ({ status: 201, body: { generation: 1, mtime: '2026-11-01T06:00:00.000Z' } });

// @ts-expect-error generation must be a number
export const wrongFieldType: Handler<'getDbStatus'> = async () => ({ status: 200, body: { generation: 'one', mtime: '2026-11-01T06:00:00.000Z' } });

// @ts-expect-error a required field (mtime) is missing
export const missingField: Handler<'getDbStatus'> = async () => ({ status: 200, body: { generation: 1 } });

export async function extraField(): Promise<Result<'getStoreStatus'>> {
  // @ts-expect-error fields the contract does not have are rejected
  return { status: 200, body: { active: false, secret: 'x' } };
}

// @ts-expect-error a handler map without every operation does not compile
export const incomplete: HandlerMap = { getHealth };

// @ts-expect-error a binary response must name its media type
export const binaryWithoutMediaType: Handler<'getReport'> = async () => ({ status: 200, body: Buffer.from('%PDF-1.4') });

// @ts-expect-error a problem is thrown, never returned, even one the operation declares
export const returnedProblem: Handler<'getNote'> = async () => ({ status: 404, contentType: 'application/problem+json', body: { type: 'x', title: 'x', status: 404, detail: 'x' } });

// @ts-expect-error a JSON body cannot be sent as a problem of an undeclared status
export const undeclaredProblem: Handler<'getStoreStatus'> = async () => ({ status: 404, contentType: 'application/problem+json', body: { type: 'x', title: 'x', status: 404, detail: 'x' } });
