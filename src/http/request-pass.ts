import type Koa from 'koa';
import type { RequestContext } from './request-context.js';

/**
 * A step before the operation is served: it refuses the request by throwing (an HttpProblem), answers it itself by
 * returning true (a CORS preflight), or lets it through.
 */
export type Admission = (ctx: Koa.Context) => boolean | void;

/** What a request passes through, each once, in the order of the fields. */
export interface RequestSteps {
  /** Its id and headers first; its log line and duration last, whatever happened between. */
  context: RequestContext;
  /** With tracing: called first, it gives what names the request's span at the end (null: no span recorded). */
  span?: ((ctx: Koa.Context) => (() => void) | null) | null;
  /** In order: the client address, the host, CORS, the cross-site guard. */
  admissions: readonly Admission[];
  /** The operation: matched, authorized, validated, handled, its result written to `ctx`. */
  serve: (ctx: Koa.Context) => Promise<void>;
  /** The one place an error becomes an answer: a problem response, never a stack trace. */
  answerError: (ctx: Koa.Context, err: unknown) => void;
  /** Once the answer is decided: its content coding; a promise only when a body is being compressed. */
  compress?: ((ctx: Koa.Context) => Promise<void> | undefined) | null;
  /** The audit line of the request, when it is one to audit. */
  audit?: ((ctx: Koa.Context) => void) | null;
}

/**
 * The one middleware: every request is taken through each step once, in one async frame instead of one per
 * concern. An error anywhere (an admission's refusal, the operation's problem, a failed compression) is answered
 * by `answerError`; a problem answer is compressed as any other. The audit line, the span's name, the log line and
 * the duration come last, from what the request did.
 */
export function requestPass(steps: RequestSteps): Koa.Middleware {
  const { context, admissions, serve, answerError } = steps;
  const span = steps.span ?? null;
  const compress = steps.compress ?? null;
  const audit = steps.audit ?? null;
  return async (ctx) => {
    context.begin(ctx);
    const nameSpan = span === null ? null : span(ctx);
    try {
      try {
        if (!answeredBeforeServing(admissions, ctx)) await serve(ctx);
      } catch (err) {
        answerError(ctx, err);
      }
      const compressing = compress === null ? undefined : compress(ctx);
      if (compressing !== undefined) await compressing;
    } catch (err) {
      answerError(ctx, err);
    } finally {
      audit?.(ctx);
      nameSpan?.();
      context.end(ctx);
    }
  };
}

/** Runs the admissions in order; true when one answered the request itself. */
function answeredBeforeServing(admissions: readonly Admission[], ctx: Koa.Context): boolean {
  for (const admission of admissions) if (admission(ctx) === true) return true;
  return false;
}
