import { pino } from 'pino';
import { maskedText } from './common/secrets.js';
import { traceLogFields } from './tracing.js';

/** The structured logger used everywhere (pino; JSON lines on stdout). */
export type Logger = pino.Logger;

/**
 * pino's `isoTime` (`,"time":"2026-11-23T16:00:00.000Z"`) read from `now`, formatted once per millisecond: under
 * load many lines share one, and `toISOString` was 1.6% of a small request's CPU.
 */
function isoTime(now: () => number): () => string {
  let lastMs = Number.NaN;
  let lastTime = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return lastTime;
  };
}

/**
 * The log lines of one turn of the event loop, written together when the turn ends. A line is on standard output
 * before the next turn starts, in the order it was logged, and an exit (also through `process.exit`) writes what is
 * left: every write is synchronous (sonic-boom in its `sync` mode, which also waits out a full pipe). One write call
 * per line was a tenth of a small request's CPU; written asynchronously, the lines fell behind the requests: after
 * 14 s at about 12,000 requests a second, 142,000 of 168,000 request lines still waited in memory, and a write still
 * in flight when the process exited came out cut. A reader of standard output slower than the server slows the
 * server down instead.
 */
class TurnLines {
  private readonly lines: string[] = [];
  private scheduled = false;
  private readonly destination: ReturnType<typeof pino.destination>;

  constructor(fd: number) {
    // lines handed over as one buffer per turn: sonic-boom copies a string into a buffer after each write
    this.destination = pino.destination({ dest: fd, sync: true, contentMode: 'buffer' });
    process.once('exit', () => this.flush());
  }

  write(line: string): boolean {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /** Writes the lines gathered so far (pino calls it on `logger.flush()`, the exit hook above on exit). */
  flush(done?: (err?: Error) => void): void {
    this.scheduled = false;
    if (this.lines.length > 0) {
      const bytes = Buffer.from(this.lines.join(''));
      this.lines.length = 0;
      // (sonic-boom's types know only its utf8 mode)
      this.destination.write(bytes as unknown as string);
    }
    done?.();
  }
}

/** Fields (at the top of a line or one level down) whose values are secrets: written as `***` whatever they hold. */
const SECRET_FIELDS = ['password', 'secretKey', 'accessKey', 'token', 'apiKey', 'authorization'];
const SECRET_FIELD_SET: ReadonlySet<string> = new Set(SECRET_FIELDS);
/** How deep masking looks into a field's objects and arrays (an error's own fields, its aggregated errors). */
const MASK_DEPTH = 6;

/**
 * `value` with every URL in its strings masked (maskedText) and fields named as secrets `***`, read as
 * JSON.stringify reads it (`toJSON` where there is one, else own enumerable fields) down to MASK_DEPTH.
 */
function maskedValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return maskedText(value, secrets);
  if (value === null || typeof value !== 'object' || depth >= MASK_DEPTH || ArrayBuffer.isView(value)) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return maskedValue(toJSON.call(value), secrets, depth + 1);
  if (Array.isArray(value)) return value.map((item) => maskedValue(item, secrets, depth + 1));
  const masked: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) masked[key] = SECRET_FIELD_SET.has(key) ? '***' : maskedValue(field, secrets, depth + 1);
  return masked;
}

/**
 * An `err` field as pino writes it (message, stack, type, the error's own fields such as a URL error's `input`, and
 * an AggregateError's errors), with every URL in every string of it masked (src/common/secrets.ts): a driver's or
 * SDK's error may repeat a URL with its password or a signed query.
 */
function maskedError(err: unknown, secrets: readonly string[]): unknown {
  if (typeof err === 'string') return maskedText(err, secrets);
  return maskedValue(pino.stdSerializers.err(err as Error) as unknown, secrets);
}

/** The fields of a line but `err` (maskedError masks that), masked as maskedValue does. */
function maskedFields(fields: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) masked[key] = key === 'err' ? value : maskedValue(value, secrets);
  return masked;
}

/**
 * Creates the root logger at `level`; `silent` for tests that do not want output. JSON lines on stdout, gathered
 * per turn of the event loop and written when it ends (`TurnLines`), so that the lines of a process killed with
 * SIGKILL are lost at most for its last turn. With `traceIds` (tracing configured), a line written inside a trace
 * carries its `trace_id` and `span_id`; without, lines cost nothing more. Lines are stamped from `now` (ms since
 * the epoch), `Date.now` unless a test sets the time. Secrets are masked before a line is written: fields named as
 * secrets (SECRET_FIELDS), URLs in every string of a line (its message, its fields and its `err` included), and each
 * of `secrets` (the configuration's: configSecrets) wherever it stands.
 */
export function createLogger(
  level: pino.LevelWithSilent,
  { traceIds = false, now = Date.now, secrets = [] }: { traceIds?: boolean; now?: () => number; secrets?: readonly string[] } = {},
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'analytics-desk-server' },
    timestamp: isoTime(now),
    serializers: { err: (err: unknown) => maskedError(err, secrets) },
    formatters: { log: (fields) => maskedFields(fields, secrets) },
    hooks: {
      // the message and its interpolated values; an error logged without a message gives it its own, masked too
      logMethod(args, method) {
        const masked = args.map((arg, i) => (i > 0 || typeof arg === 'string' ? maskedValue(arg, secrets) : arg)) as Parameters<typeof method>;
        if (args[0] instanceof Error && typeof args[1] !== 'string') masked.splice(1, 0, maskedText(args[0].message, secrets));
        method.apply(this, masked);
      },
    },
    redact: { paths: SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]), censor: '***' },
  };
  if (traceIds) options.mixin = traceLogFields;
  return level === 'silent' ? pino(options) : pino(options, new TurnLines(1));
}
