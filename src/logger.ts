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
 * Most bytes sonic-boom gathers into one string while a write is in flight. It measures that string's UTF-8
 * length on every line, which copies it flat each time, so at its default (16 KiB) a burst of lines costs time
 * quadratic in the burst: 1–2 µs of CPU per line instead of 2–6 µs (bursts of 10–200 lines, /dev/null or a pipe).
 */
const LOG_WRITE_BYTES = 1024;

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
  return level === 'silent' ? pino(options) : pino(options, pino.destination({ dest: 1, sync: false, maxWrite: LOG_WRITE_BYTES }));
}
