/*
 * How a copy ends when it does not copy, each with its exit code (docs/deployment.md): refused before anything was
 * written (2), failed and rolled back (1), interrupted by SIGINT or SIGTERM and rolled back (130, 143). Each message is one line
 * with no password in it.
 */

/** Refused before the target was written: bad arguments, an unreachable or unsuitable database (exit 2). */
export class CopyRefusal extends Error {
  readonly exitCode = 2;
}

/** The copy failed after it began writing; its transaction was rolled back (exit 1). */
export class CopyFailure extends Error {
  readonly exitCode = 1;
}

/**
 * SIGINT or SIGTERM during the copy; its transaction was rolled back (exit 130 or 143, 128 and the signal's number,
 * as a shell reports a program the signal ended).
 */
export class CopyInterrupted extends Error {
  readonly exitCode: number;
  constructor(signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') {
    super(`${signal === 'SIGINT' ? 'interrupted' : 'terminated (SIGTERM)'}: the copy was rolled back, the target is as it was`);
    this.exitCode = signal === 'SIGINT' ? 130 : 143;
  }
}

/** The first line of a driver's error (the caller masks what must not be shown). */
export function oneLine(err: unknown): string {
  const { message, code } = (err ?? {}) as { message?: unknown; code?: unknown };
  return (typeof message === 'string' && message.trim() !== '' ? message : String(code ?? err)).split('\n')[0]!.trim();
}
