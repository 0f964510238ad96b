import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { parse as parseJsonText } from '@hapi/bourne';
import { HttpProblem, invalidRequest } from './errors.js';
import { jsonShapeProblem } from './json-depth.js';

/** Largest accepted request body (1 MiB); larger bodies answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Bytes of a refused body read and dropped after its 413 (8 MiB). A connection closed while the client still sends
 * has unread data and ends with a reset, which can cost the client the answer before it reads it; read on, the
 * client gets its 413 and may keep the connection. Past this, the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 8 * BODY_LIMIT_BYTES;

/**
 * koa-body reading the body as text only (co-body underneath: UTF-8, at most BODY_LIMIT_BYTES, compressed bodies
 * inflated), for the JSON media types; the text is parsed here (see readJsonBody), so that its nesting is judged
 * before any value is built. Its errors become problems: 413 beyond the limit (declared or counted while reading),
 * 400 for a body that broke off. Loaded with the first request that has a body: koa-body and what it loads (zod,
 * formidable) are ~10 MB of RSS that a server answering only reads never needs.
 */
let textReader: Promise<Koa.Middleware> | null = null;
const readText = (ctx: Koa.Context): Promise<void> => {
  textReader ??= import('koa-body').then(({ HttpMethodEnum, koaBody }) =>
    koaBody({
      json: false,
      text: true,
      textLimit: BODY_LIMIT_BYTES,
      // readJsonBody admits only the media types the operation declares, before this runs
      textTypes: ['application/json', 'application/*+json'],
      urlencoded: false,
      multipart: false,
      encoding: 'utf-8',
      includeUnparsed: true,
      patchNode: false,
      patchKoa: true,
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      onError: (err, ctx) => {
        throw toProblem(err, ctx);
      },
    }) as Koa.Middleware,
  );
  return textReader.then(async (read) => {
    await read(ctx, async () => {});
  });
};

/**
 * Reads and parses a JSON request body for an operation whose contract accepts `mediaTypes`.
 * Returns undefined when the request has no body. 415 for another media type or charset, 413 beyond the limit,
 * 400 for JSON nested deeper than MAX_JSON_DEPTH or holding more than MAX_JSON_VALUES values (judged on the text,
 * before anything is parsed), for malformed JSON and for a `__proto__` member (prototype poisoning:
 * bourne, as co-body parses).
 */
export async function readJsonBody(ctx: Koa.Context, mediaTypes: readonly string[]): Promise<unknown> {
  const declaredLength = ctx.request.length;
  const chunked = ctx.get('transfer-encoding') !== '';
  if (!chunked && (declaredLength === undefined || declaredLength === 0)) return undefined;

  const contentType = ctx.get('content-type');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const charset = /;\s*charset=("?)([^";]+)\1/i.exec(contentType)?.[2]?.toLowerCase();
  if (!mediaTypes.includes(mediaType) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new HttpProblem('unsupported-media-type', `request body must be ${mediaTypes.join(' or ')} (UTF-8); got "${contentType || 'no Content-Type'}"`);
  }
  await readText(ctx);
  const text = ctx.request.rawBody ?? '';
  if (text.trim() === '') return undefined;
  const shapeProblem = jsonShapeProblem(text);
  if (shapeProblem !== null) throw invalidRequest([{ in: 'body', name: '', message: shapeProblem }]);
  try {
    const body = parseJsonText(text, { protoAction: 'error' }) as NonNullable<typeof ctx.request.body>;
    ctx.request.body = body;
    return body;
  } catch (err) {
    throw invalidRequest([{ in: 'body', name: '', message: `malformed JSON: ${(err as Error).message}` }]);
  }
}

/** The problem of a body koa-body could not read: co-body and raw-body set `status` and `type` on their errors. */
function toProblem(err: Error, ctx: Koa.Context): HttpProblem {
  const { status, type } = err as Error & { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') {
    const declared = ctx.request.length;
    if (declared !== undefined && declared > DRAIN_LIMIT_BYTES) ctx.set('Connection', 'close');
    else drainAfterAnswer(ctx.req, ctx.res);
    return new HttpProblem('payload-too-large', `request body exceeds ${BODY_LIMIT_BYTES} bytes`);
  }
  return invalidRequest([{ in: 'body', name: '', message: `the body could not be read: ${err.message}` }]);
}

/**
 * Once the answer is sent, reads the rest of a refused body and drops it (Node would read it all for a kept
 * connection); destroys the connection when more than DRAIN_LIMIT_BYTES come.
 */
function drainAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return;
    let drained = 0;
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_LIMIT_BYTES) req.socket.destroy();
    });
    req.resume();
  });
}
