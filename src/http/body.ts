import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { parse as parseJsonText } from '@hapi/bourne';
import type Koa from 'koa';
import { invalidRequest, Problem, type ValidationIssue } from '../common/problems.js';

// JSON in requests: a body's size, nesting and values judged while it arrives, then parsed; JSON carried in a
// query parameter judged by the same limits.

/** Deepest nesting of arrays and objects a JSON request body may have (declared in openapi.yaml, docs/errors.md). */
export const MAX_JSON_DEPTH = 32;

/**
 * Most values (arrays, objects, strings, numbers, `true`, `false`, `null`; member names do not count) a JSON request
 * body may hold, declared like the depth: each costs the parser an allocation and the collector a trace, and 1 MiB
 * of `[[0]],` builds ~350,000 arrays (hundreds of milliseconds on the server's only thread), 1 MiB of `0,` half a
 * million numbers. The largest body an operation needs (a cell update with 500 replies) holds about 3,500.
 */
export const MAX_JSON_VALUES = 20_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LETTER_F = 0x66;
const LETTER_N = 0x6e;
const LETTER_T = 0x74;
const NOTHING = -1;
const UNKNOWN = -2;

/** Whether the character starts a number or a literal (`true`, `false`, `null`) where a value may start. */
const startsScalar = (code: number): boolean => (code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS || code === LETTER_T || code === LETTER_F || code === LETTER_N;

/**
 * Judges JSON text piece by piece as it arrives, without building anything: why it is refused (it nests arrays and
 * objects deeper than `maxDepth`, or holds more than `maxValues` values) at the first value past a limit, so that a
 * request body can be refused before the rest of it is read. One pass over the bytes (brackets inside strings do not
 * count; UTF-8 continuation bytes never look like JSON's ASCII punctuation, so a character split between two pieces
 * is harmless). Run before JSON.parse: a 1 MiB body of nested arrays costs hundreds of milliseconds to build and
 * collect, and every recursive walk of it (validation, size checks) overflows the stack; the scan costs about a
 * millisecond per MiB. Text that is not JSON is left to the parser to refuse (it may be miscounted: it is refused
 * either way).
 */
export class JsonShapeScanner {
  private depth = 0;
  // strings, containers and scalars, less the member names (one per colon)
  private values = 0;
  private previous = NOTHING;
  private inString = false;
  private escaped = false;

  constructor(
    private readonly maxDepth = MAX_JSON_DEPTH,
    private readonly maxValues = MAX_JSON_VALUES,
  ) {}

  /** Judges the next piece of the text (UTF-8); the problem once a limit is passed, else null. */
  push(piece: Uint8Array): string | null {
    const { maxDepth, maxValues } = this;
    let { depth, values, previous, inString, escaped } = this;
    let problem: string | null = null;
    const length = piece.length;
    // where the next quote and backslash of the piece are (NOTHING: none left; UNKNOWN: not looked for yet), so
    // that a string is crossed at indexOf's speed, each byte looked at once however many escapes it holds
    let nextQuote = UNKNOWN;
    let nextBackslash = UNKNOWN;
    for (let i = 0; i < length; i += 1) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        if (nextQuote !== NOTHING && nextQuote < i) nextQuote = piece.indexOf(QUOTE, i);
        if (nextBackslash !== NOTHING && nextBackslash < i) nextBackslash = piece.indexOf(BACKSLASH, i);
        if (nextBackslash !== NOTHING && (nextQuote === NOTHING || nextBackslash < nextQuote)) {
          // the next character is escaped (it may be in the next piece)
          escaped = true;
          i = nextBackslash;
        } else if (nextQuote === NOTHING) {
          break;
        } else {
          inString = false;
          i = nextQuote;
        }
        continue;
      }
      const code = piece[i]!;
      if (code <= 0x20) continue;
      if (code === QUOTE) {
        values += 1;
        inString = true;
      } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        depth += 1;
        values += 1;
        if (depth > maxDepth) {
          problem = `nests arrays and objects deeper than ${maxDepth} levels`;
          break;
        }
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        depth -= 1;
      } else if (code === COLON) {
        values -= 1;
      } else if (startsScalar(code) && (previous === NOTHING || previous === OPEN_ARRAY || previous === COMMA || previous === COLON)) {
        values += 1;
      }
      // one over: the member name counted before its colon takes it back
      if (values > maxValues + 1) {
        problem = `holds more than ${maxValues} values`;
        break;
      }
      previous = code;
    }
    Object.assign(this, { depth, values, previous, inString, escaped });
    return problem;
  }

  /** The problem of the whole text, once every piece was pushed; null when none. */
  end(): string | null {
    return this.values > this.maxValues ? `holds more than ${this.maxValues} values` : null;
  }
}

/** Why the JSON text is refused before it is parsed (see JsonShapeScanner); null when it is not. */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): string | null {
  const scanner = new JsonShapeScanner(maxDepth, maxValues);
  return scanner.push(Buffer.from(text, 'utf8')) ?? scanner.end();
}

/**
 * The values of the query parameters named (those the contract declares with `content: application/json`) that pass
 * a limit of a JSON body, as `errors[]` entries (`in: query`), judged before anything parses them: the same limits
 * hold for JSON wherever a request carries it.
 */
export function jsonQueryIssues(names: readonly string[], query: Readonly<Record<string, string | string[] | undefined>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const raw = query[name];
    const problem = (typeof raw === 'string' ? [raw] : (raw ?? [])).map((value) => jsonShapeProblem(value)).find((found) => found !== null);
    if (problem !== undefined) issues.push({ in: 'query', name, message: problem });
  }
  return issues;
}

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
