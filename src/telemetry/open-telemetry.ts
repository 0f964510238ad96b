// The one module that loads the OpenTelemetry SDK, imported by start-tracing.ts only when tracing is configured.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import { DiagLogLevel, SpanStatusCode, context, diag, isSpanContextValid, propagation, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, serviceInstanceIdDetector } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';
import { installTracer, type RunningTracing, type SpanAttributes, type StepSpan, type Tracer } from '../tracing.js';
import type { TracesSampler, TracingConfig } from './tracing-config.js';

/** The service name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES gives one (the log lines' `service`). */
const SERVICE_NAME = 'analytics-desk-server';
/** How long a stop waits for the last spans to be sent: a collector that does not answer must not hold the shutdown. */
const STOP_MS = 3000;

/**
 * Starts the tracer provider (sampler, exporter endpoint, headers, timeout and resource attributes from the standard
 * OTEL_* variables, the protocol from `config`), registers it with the OpenTelemetry API with the W3C propagator, and
 * enables the instrumentations of `http` (incoming requests, the object store), `fetch` (GitHub, the language
 * model) and `pg` (the app database). Outgoing calls and queries get a span only inside a traced request or step.
 * The SDK's own warnings (a collector that does not answer) go to `log`.
 */
export function startOpenTelemetry(config: TracingConfig, log: Logger): RunningTracing {
  const sdkLog = log.child({ component: 'tracing' });
  diag.setLogger(
    { error: (message) => sdkLog.warn(message), warn: (message) => sdkLog.warn(message), info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  );
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const provider = new TracerProvider({
    sampler: samplerOf(config.sampler.name, config.sampler.ratio),
    spanLimits: config.spanLimits,
    // service.instance.id (one per process start) and host.name tell instances apart; the OTEL_* variables win
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': SERVICE_NAME, 'host.name': os.hostname() }))
      .merge(detectResources({ detectors: [serviceInstanceIdDetector, envDetector] })),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...config.batch })],
  });
  // What NodeTracerProvider.register() did before SDK 3: async context, the W3C trace-context and baggage propagators.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ requireParentforOutgoingSpans: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  patchLoadedHttp();
  const tracer = provider.getTracer(SERVICE_NAME);
  installTracer(stepTracer(tracer));
  return {
    async stop() {
      installTracer(null);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_MS)));
      await Promise.race([provider.shutdown().catch((err: unknown) => sdkLog.warn({ err }, 'spans not sent at shutdown')), late]);
      clearTimeout(timer);
    },
  };
}

/**
 * The instrumentations patch a module when it is required after they are enabled; `http` and `https` were loaded
 * long before (every import of the server), so they are required once more here, which patches them, and the named
 * exports ESM modules see (`import * as http`, as minio does) are synced with the patched functions.
 * `pg` needs nothing of this: TypeORM requires it when the app database is opened, after this has run.
 */
function patchLoadedHttp(): void {
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  syncBuiltinESMExports();
}

/** The sampler OTEL_TRACES_SAMPLER names (SDK 3 no longer reads the variable itself). */
function samplerOf(name: TracesSampler, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

function stepTracer(tracer: ReturnType<TracerProvider['getTracer']>): Tracer {
  return {
    inSpan(name, attributes, work) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work();
        } catch (err) {
          fail(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
    startSpan(name, attributes): StepSpan {
      const span = tracer.startSpan(name, { attributes });
      let ended = false;
      return {
        end(error?: unknown, more?: SpanAttributes) {
          if (ended) return;
          ended = true;
          if (more !== undefined) span.setAttributes(more);
          if (error !== undefined && error !== null) fail(span, error);
          span.end();
        },
      };
    },
    requestSpan() {
      const span = trace.getActiveSpan();
      return span !== undefined && span.isRecording() ? span : null;
    },
    logFields(): Record<string, string> {
      const context = trace.getActiveSpan()?.spanContext();
      return context !== undefined && isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  };
}

function fail(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
