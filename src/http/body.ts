import type Koa from 'koa';
import { HttpProblem, invalidRequest } from './errors.js';

/** Largest accepted request body (1 MiB); larger bodies answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON request body for an operation whose contract accepts `mediaTypes`.
 * Returns undefined when the request has no body. 415 for another media type or charset, 413 beyond the limit,
 * 400 for malformed JSON.
 */
export async function readJsonBody(ctx: Koa.Context, mediaTypes: readonly string[], limit: number = BODY_LIMIT_BYTES): Promise<unknown> {
  const declaredLength = ctx.request.length;
  const chunked = ctx.get('transfer-encoding') !== '';
  if (!chunked && (declaredLength === undefined || declaredLength === 0)) return undefined;

  const contentType = ctx.get('content-type');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const charset = /;\s*charset=("?)([^";]+)\1/i.exec(contentType)?.[2]?.toLowerCase();
  if (!mediaTypes.includes(mediaType) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpProblem('unsupported-media-type', `request body must be ${mediaTypes.join(' or ')} (UTF-8); got "${contentType || 'no Content-Type'}"`);
  }
  if (declaredLength !== undefined && declaredLength > limit) {
    throw tooLarge(ctx, limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(ctx, limit);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalidRequest([{ in: 'body', name: '', message: `malformed JSON: ${(err as Error).message}` }]);
  }
}

function tooLarge(ctx: Koa.Context, limit: number): HttpProblem {
  // The rest of the body is not read: close the connection after answering.
  ctx.set('Connection', 'close');
  return new HttpProblem('payload-too-large', `request body exceeds ${limit} bytes`);
}
