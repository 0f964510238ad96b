import { pino } from 'pino';

/** The structured logger used everywhere (pino; JSON lines on stdout). */
export type Logger = pino.Logger;

/** Creates the root logger at `level`; `silent` for tests that do not want output. */
export function createLogger(level: pino.LevelWithSilent): Logger {
  return pino({ level, base: { service: 'analytics-desk-server' }, timestamp: pino.stdTimeFunctions.isoTime });
}
