import { pino } from 'pino';
import { traceLogFields } from './telemetry/tracing.js';

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
 * Most bytes one write of the log takes. sonic-boom gathers the lines that come while a write is in flight and
 * writes them together, up to this much per write. It keeps them as buffers (its `buffer` content mode): gathered
 * as one string, it measures the string's UTF-8 length on every line, which copies it flat each time (2–6 µs per
 * line at 16 KiB), and with 1 KiB writes it fell behind a small request's rate: after 14 s at about 12,000
 * requests a second, 142,000 of 168,000 request lines were still waiting in memory.
 */
const LOG_WRITE_BYTES = 64 * 1024;

/**
 * Creates the root logger at `level`; `silent` for tests that do not want output. Lines are written to stdout
 * asynchronously: a line never waits for the write of the one before, and lines that come while a write is in
 * flight go out together with the next one (one write call per request was a tenth of a small request's CPU).
 * The buffer is flushed when the process exits (also through SIGTERM/SIGINT); a process killed with SIGKILL
 * can lose the lines of its last moment. With `traceIds` (tracing configured), a line written inside a trace
 * carries its `trace_id` and `span_id`; without, lines cost nothing more. Lines are stamped from `now` (ms since
 * the epoch), `Date.now` unless a test sets the time.
 */
export function createLogger(
  level: pino.LevelWithSilent,
  { traceIds = false, now = Date.now }: { traceIds?: boolean; now?: () => number } = {},
): Logger {
  const options: pino.LoggerOptions = { level, base: { service: 'analytics-desk-server' }, timestamp: isoTime(now) };
  if (traceIds) options.mixin = traceLogFields;
  if (level === 'silent') return pino(options);
  // pino writes strings; the destination, made by pino so that it is flushed on exit, takes buffers
  const destination = pino.destination({ dest: 1, sync: false, contentMode: 'buffer', maxWrite: LOG_WRITE_BYTES });
  const lines = {
    // (sonic-boom's types know only its utf8 mode)
    write: (line: string): boolean => destination.write(Buffer.from(line) as unknown as string),
    flush: (done?: (err?: Error) => void): void => destination.flush(done),
    flushSync: (): void => destination.flushSync(),
  };
  return pino(options, lines);
}
