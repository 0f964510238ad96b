import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import zlib from 'node:zlib';
import type Koa from 'koa';
import { parse as parseJsonText } from '@hapi/bourne';
import { Problem, invalidRequest } from '../common/problems.js';
import { JsonShapeScanner } from './json-depth.js';

/** Largest accepted request body (1 MiB); larger bodies answer 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Bytes of a refused body read and dropped after its 413 or 400 (8 MiB). A connection closed while the client still
 * sends has unread data and ends with a reset, which can cost the client the answer before it reads it; read on,
 * the client gets its answer and may keep the connection. Past this, the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 8 * BODY_LIMIT_BYTES;

/**
 * Bodies of at least this many bytes (64 KiB) are decoded, parsed and validated one per turn of the event loop (see
 * LargeBodyQueue); a smaller one costs well under a millisecond and goes straight on.
 */
export const LARGE_BODY_BYTES = 64 * 1024;

/**
 * Large bodies wait in line for a turn of the event loop each, in the order they arrived; one line per app. What
 * follows a large body (decoding, parse, validation, the answer: milliseconds for 1 MiB) runs without yielding;
 * bodies that finish arriving together would otherwise be worked through back to back while every other client
 * waits. Between two turns the event loop polls, so others wait for one body's work at most
 * (docs/decisions/0015-json-bodies-judged-while-they-arrive.md).
 */
export class LargeBodyQueue {
  private last: Promise<void> = Promise.resolve();

  /** Resolves in a turn of the event loop of its own, after every body that was in line before. */
  nextTurn(): Promise<void> {
    const turn = this.last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.last = turn;
    return turn;
  }
}

/**
 * Reads and parses a JSON request body for an operation whose contract accepts `mediaTypes`.
 * Returns undefined when the request has no body. 415 for another media type or charset, 413 beyond the limit,
 * 400 for JSON nested deeper than MAX_JSON_DEPTH or holding more than MAX_JSON_VALUES values (judged while the body
 * arrives: reading stops at the first value past a limit), for malformed JSON and for a `__proto__` member
 * (prototype poisoning: bourne).
 */
export async function readJsonBody(ctx: Koa.Context, mediaTypes: readonly string[], queue: LargeBodyQueue): Promise<unknown> {
  const declaredLength = ctx.request.length;
  const chunked = ctx.get('transfer-encoding') !== '';
  if (!chunked && (declaredLength === undefined || declaredLength === 0)) return undefined;

  const contentType = ctx.get('content-type');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const charset = /;\s*charset=("?)([^";]+)\1/i.exec(contentType)?.[2]?.toLowerCase();
  if (!mediaTypes.includes(mediaType) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new Problem('unsupported-media-type', `request body must be ${mediaTypes.join(' or ')} (UTF-8); got "${contentType || 'no Content-Type'}"`);
  }
  const bytes = await readJudged(ctx);
  if (bytes.length >= LARGE_BODY_BYTES) await queue.nextTurn();
  // UTF-8; a byte order mark is dropped, as the body reader before did
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return undefined;
  try {
    return parseJsonText(text, { protoAction: 'error' }) as unknown;
  } catch (err) {
    throw invalidRequest([{ in: 'body', name: '', message: `malformed JSON: ${(err as Error).message}` }]);
  }
}

/**
 * The body's bytes, inflated when it is compressed (Content-Encoding gzip, deflate or br), each piece judged for
 * size and shape as it arrives. At the first piece past a limit reading stops and the problem is thrown (413, or
 * 400 from the shape); the rest of the body is read and dropped after the answer (drainAfterAnswer). 400 for a body
 * in an unknown encoding, one that cannot be inflated, or one that broke off.
 */
function readJudged(ctx: Koa.Context): Promise<Buffer> {
  const { req, res } = ctx;
  const encoding = req.headers['content-encoding'] ?? 'identity';
  const identity = encoding === 'identity';
  const declared = ctx.request.length;
  const tooLarge = (): Problem => {
    if (identity && declared !== undefined && declared > DRAIN_LIMIT_BYTES) ctx.set('Connection', 'close');
    else drainAfterAnswer(req, res);
    return new Problem('payload-too-large', `request body exceeds ${BODY_LIMIT_BYTES} bytes`);
  };
  if (identity && declared !== undefined && declared > BODY_LIMIT_BYTES) return Promise.reject(tooLarge());
  const inflater = INFLATERS.get(encoding);
  if (inflater === undefined) return Promise.reject(unreadable(new Error(`Unsupported Content-Encoding: ${encoding}`)));
  const inflated = inflater === null ? null : req.pipe(inflater());
  const source: Readable = inflated ?? req;
  const scanner = new JsonShapeScanner();
  return new Promise<Buffer>((resolve, reject) => {
    const pieces: Buffer[] = [];
    let received = 0;
    const stop = (problem: Problem | null): void => {
      source.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('close', onClose);
      if (problem === null) {
        resolve(Buffer.concat(pieces, received));
        return;
      }
      if (inflated !== null) {
        req.unpipe(inflated);
        inflated.destroy();
      }
      req.pause();
      reject(problem);
    };
    const onData = (piece: Buffer): void => {
      received += piece.length;
      if (received > BODY_LIMIT_BYTES) return stop(tooLarge());
      const shape = scanner.push(piece);
      if (shape !== null) {
        drainAfterAnswer(req, res);
        return stop(invalidRequest([{ in: 'body', name: '', message: shape }]));
      }
      pieces.push(piece);
    };
    const onEnd = (): void => {
      const shape = scanner.end();
      stop(shape === null ? null : invalidRequest([{ in: 'body', name: '', message: shape }]));
    };
    const onError = (err: Error): void => {
      // a body that cannot be inflated: the rest of it is read and dropped like that of a refused one
      drainAfterAnswer(req, res);
      stop(unreadable(err));
    };
    const onClose = (): void => {
      if (!req.complete) stop(unreadable(new Error('request aborted')));
    };
    source.on('data', onData).once('end', onEnd).once('error', onError);
    req.once('close', onClose);
  });
}

/** How a body of each Content-Encoding is inflated (null: as it is); the codings a client may compress a body with. */
const INFLATERS: ReadonlyMap<string, (() => Duplex) | null> = new Map([
  ['identity', null],
  ['gzip', () => zlib.createUnzip()],
  ['deflate', () => zlib.createUnzip()],
  ['br', () => zlib.createBrotliDecompress()],
]);

/** 400 for a body that could not be read. */
const unreadable = (err: Error): Problem => invalidRequest([{ in: 'body', name: '', message: `the body could not be read: ${err.message}` }]);

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
