import { pino } from 'pino';

/** The structured logger used everywhere (pino; JSON lines on stdout). */
export type Logger = pino.Logger;

/**
 * Creates the root logger at `level`; `silent` for tests that do not want output. Lines are written to stdout
 * asynchronously: a line never waits for the write of the one before, and lines that come while a write is in
 * flight go out together with the next one (one write call per request was a tenth of a small request's CPU).
 * The buffer is flushed when the process exits (also through SIGTERM/SIGINT); a process killed with SIGKILL
 * can lose the lines of its last moment.
 */
export function createLogger(level: pino.LevelWithSilent): Logger {
  const options = { level, base: { service: 'analytics-desk-server' }, timestamp: pino.stdTimeFunctions.isoTime };
  return level === 'silent' ? pino(options) : pino(options, pino.destination({ dest: 1, sync: false }));
}
