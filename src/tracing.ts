// The server's side of tracing, without OpenTelemetry: domain code marks its long steps here, and nothing of
// OpenTelemetry is imported unless tracing is configured (start-tracing.ts, docs/decisions/0012-tracing-starts-in-main.md).
// The tracer is process-wide, as OpenTelemetry's own tracer provider and context are.

/** Attribute values a span may carry. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** A span ended by hand (a stream's): the first `end` counts, marked failed when given an error. */
export interface StepSpan {
  end(error?: unknown, attributes?: SpanAttributes): void;
}

/** The span of the request being served, as the HTTP layer names it once the contract has matched an operation. */
export interface RequestSpan {
  updateName(name: string): unknown;
  setAttributes(attributes: SpanAttributes): unknown;
}

/** What the OpenTelemetry side (open-telemetry.ts) installs while tracing runs. */
export interface Tracer {
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  startSpan(name: string, attributes: SpanAttributes): StepSpan;
  /** The recording span of the request whose context is active, else null. */
  requestSpan(): RequestSpan | null;
  /** `trace_id` and `span_id` of the active span for a log line, empty outside a trace: a new object each time. */
  logFields(): Record<string, string>;
}

/** Tracing that runs: `stop` sends the spans not yet sent (for a few seconds at most) and never rejects. */
export interface RunningTracing {
  stop(): Promise<void>;
}

const NO_SPAN: StepSpan = { end: () => {} };
const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});
let tracer: Tracer | null = null;

/** Installs the tracer that the functions below use (open-telemetry.ts); null uninstalls it. */
export function installTracer(installed: Tracer | null): void {
  tracer = installed;
}

/** True while tracing runs. */
export function isTracing(): boolean {
  return tracer !== null;
}

/** Runs `work` as the active span `name` (a child of the active one), ended when `work` settles; just `work` without tracing. */
export function inSpan<T>(name: string, work: () => Promise<T>, attributes: SpanAttributes = NO_FIELDS): Promise<T> {
  return tracer === null ? work() : tracer.inSpan(name, attributes, work);
}

/** Starts the span `name` as a child of the active one, for a step that ends in a callback; a no-op without tracing. */
export function startSpan(name: string, attributes: SpanAttributes = NO_FIELDS): StepSpan {
  return tracer === null ? NO_SPAN : tracer.startSpan(name, attributes);
}

/** The recording span of the request being served; null without tracing or when the request is not sampled. */
export function requestSpan(): RequestSpan | null {
  return tracer === null ? null : tracer.requestSpan();
}

/** `trace_id` and `span_id` of the active span, for the logger's lines; empty without tracing. A new object each time: pino merges the line into it. */
export function traceLogFields(): Record<string, string> {
  return tracer === null ? {} : tracer.logFields();
}
