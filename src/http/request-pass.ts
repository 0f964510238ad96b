import type Koa from 'koa';
import type { RequestRecord } from './request-record.js';

/**
 * A check before the operation is served: it refuses the request by throwing a problem, answers it itself by
 * returning true (a CORS preflight), or lets it through.
 */
export type Guard = (ctx: Koa.Context, record: RequestRecord) => boolean | void;

/** What a request passes through. */
export interface RequestSteps {
  /** The request's record: its id, its client, the operation it matches. */
  begin: (ctx: Koa.Context) => RequestRecord;
  /** In order: the host, CORS, the cross-site check. */
  guards: readonly Guard[];
  /** The operation: authorized, validated, handled, its result written to `ctx`. */
  serve: (ctx: Koa.Context, record: RequestRecord) => Promise<void>;
  /** The one place an error becomes an answer: a problem response, never a stack trace. */
  answerError: (ctx: Koa.Context, record: RequestRecord, err: unknown) => void;
  /** Once the answer is decided: its content coding; a promise only when a body is being compressed. */
  compress: (ctx: Koa.Context) => Promise<void> | undefined;
  /** What is written from the outcome, in order (the span's name, the audit line, the log line and the metrics). */
  end: readonly ((ctx: Koa.Context, record: RequestRecord) => void)[];
}

/**
 * The one middleware: every request goes through its steps once, in one async frame. An error anywhere (a guard's
 * refusal, the operation's problem, a failed compression) is answered by `answerError`, and a problem answer is
 * compressed as any other. What the request did is written at its end, from its record and its answer.
 */
export function requestPass(steps: RequestSteps): Koa.Middleware {
  const { begin, guards, serve, answerError, compress, end } = steps;
  return async (ctx) => {
    const record = begin(ctx);
    try {
      try {
        if (!answeredByGuard(guards, ctx, record)) await serve(ctx, record);
      } catch (err) {
        answerError(ctx, record, err);
      }
      const compressing = compress(ctx);
      if (compressing !== undefined) await compressing;
    } catch (err) {
      answerError(ctx, record, err);
    } finally {
      for (const write of end) write(ctx, record);
    }
  };
}

/** Runs the guards in order; true when one answered the request itself. */
function answeredByGuard(guards: readonly Guard[], ctx: Koa.Context, record: RequestRecord): boolean {
  for (const guard of guards) if (guard(ctx, record) === true) return true;
  return false;
}
