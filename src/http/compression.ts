import type Koa from 'koa';
import type http from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { codedTag } from '../common/entity-tags.js';

/*
 * Content coding negotiated by Accept-Encoding (RFC 9110, 8.4 and 12.5.3), with Node's zlib
 * (docs/decisions/0013-compression.md). Media types that are text (JSON, YAML, HTML, CSS, JavaScript, CSV, plain
 * text) are compressed; images and PDFs never are (they are compressed already). A body held in memory is
 * compressed whole when it is at least THRESHOLD_BYTES (below that the coding costs more than it saves); a
 * streamed body (the CSV export) always, as a stream: chunk by chunk with back-pressure, never buffered, the source
 * destroyed when the client goes. A request without Accept-Encoding gets the identity bytes as before.
 */

/** Media types worth compressing (the part before `;`). */
const COMPRESSIBLE = new Set([
  'application/json',
  'application/problem+json',
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/html',
  'text/css',
  'text/javascript',
  'application/javascript',
  'text/csv',
  'text/plain',
]);

/** Smallest body held in memory that is compressed. */
export const THRESHOLD_BYTES = 1024;

/** zlib settings: bodies in memory (small, sent once) get the usual levels; streams the cheapest (docs/decisions/0013-compression.md). */
export const LEVELS = {
  whole: { gzip: 6, br: 4 },
  stream: { gzip: 1, br: 1 },
} as const;

const NO_BODY = new Set([204, 205, 304]);
const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

type Coding = 'br' | 'gzip';

const brotliOptions = (quality: number): zlib.BrotliOptions => ({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } });

/**
 * The coding to send: br or gzip, whichever the client weighs higher (on a tie, the one it lists first), or null
 * for identity (no header, `identity`, or neither accepted).
 */
export function negotiatedCoding(ctx: Koa.Context): Coding | null {
  if (ctx.get('accept-encoding').trim() === '') return null;
  const chosen = ctx.acceptsEncodings('br', 'gzip', 'identity');
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

/** Whether a response of this media type may be compressed (and so varies by Accept-Encoding). */
export function isCompressible(contentType: string): boolean {
  // most answers carry exactly one of the listed types, as the edge sets them (answer.ts)
  return COMPRESSIBLE.has(contentType) || COMPRESSIBLE.has(contentType.split(';')[0]!.trim().toLowerCase());
}

/** A response header as text ('' when not set); `name` in lower case, as Node keys them (no copy to look it up). */
const header = (res: http.ServerResponse, name: string): string => String(res.getHeader(name) ?? '');

/** Adds `Accept-Encoding` to `Vary`: straight to Node when nothing else varies the answer (Koa's vary parses and rebuilds the header). */
function varyByCoding(ctx: Koa.Context): void {
  if (ctx.res.hasHeader('vary')) ctx.vary('Accept-Encoding');
  else ctx.res.setHeader('Vary', 'Accept-Encoding');
}

/** The headers of an answer sent in `coding`: its tag marked with the coding (src/common/entity-tags.ts) and `Content-Encoding`. */
function markCoded(ctx: Koa.Context, etag: string, coding: Coding): void {
  if (etag !== '') ctx.set('ETag', codedTag(etag, coding));
  ctx.set('Content-Encoding', coding);
}

async function compressWhole(ctx: Koa.Context, bytes: Buffer, etag: string, coding: Coding): Promise<void> {
  ctx.body = coding === 'br' ? await brotli(bytes, brotliOptions(LEVELS.whole.br)) : await gzip(bytes, { level: LEVELS.whole.gzip });
  markCoded(ctx, etag, coding);
}

/**
 * A step of the request's pass (request-pass.ts), once the answer is decided: compresses it when the client asks
 * for it; a promise only when a body held in memory is being compressed.
 */
export function compression(): (ctx: Koa.Context) => Promise<void> | undefined {
  return (ctx) => {
    const res = ctx.res;
    // a 304 names a representation whose tag depends on the coding; it varies as its 200 would
    if (ctx.status === 304 && header(res, 'etag') !== '') varyByCoding(ctx);
    if (!isCompressible(header(res, 'content-type'))) return undefined;
    varyByCoding(ctx);
    const body: unknown = ctx.body;
    if (body === null || body === undefined || ctx.method === 'HEAD' || NO_BODY.has(ctx.status) || res.headersSent) return undefined;
    if (header(res, 'content-encoding') !== '' || /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(header(res, 'cache-control'))) return undefined;
    const streamed = body instanceof Readable;
    // measured without copying a string body: most answers are small and leave uncompressed
    const size = streamed ? null : Buffer.isBuffer(body) ? body.length : typeof body === 'string' ? Buffer.byteLength(body) : null;
    if (!streamed && (size === null || size < THRESHOLD_BYTES)) return undefined;
    const coding = negotiatedCoding(ctx);
    if (coding === null) return undefined;
    const etag = header(res, 'etag');
    // a body in memory is replaced only once compressed: a failure leaves the identity answer's headers as they were
    if (!streamed) return compressWhole(ctx, Buffer.isBuffer(body) ? body : Buffer.from(body as string), etag, coding);
    markCoded(ctx, etag, coding);
    ctx.remove('Content-Length');
    const encoder = coding === 'br' ? zlib.createBrotliCompress(brotliOptions(LEVELS.stream.br)) : zlib.createGzip({ level: LEVELS.stream.gzip });
    // pipeline, not pipe: an error or a client gone (Koa destroys the body it sends) destroys the source too, so an
    // export stops reading its table
    ctx.body = pipeline(body as Readable, encoder, () => undefined);
    return undefined;
  };
}
