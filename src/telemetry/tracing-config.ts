import { maskedUrl } from '../common/secrets.js';

/** What the server decides itself of the OTEL_* variables (docs/configuration.md, "Tracing"); the SDK's exporters read the rest. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: how spans are sent. */
  readonly protocol: 'http/protobuf' | 'http/json';
  /** OTEL_TRACES_SAMPLER (default `parentbased_always_on`) with OTEL_TRACES_SAMPLER_ARG (the ratio, default 1). */
  readonly sampler: { readonly name: TracesSampler; readonly ratio: number };
  /** The batch span processor's OTEL_BSP_* settings that are set (the SDK's defaults for the others). */
  readonly batch: { scheduledDelayMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number; exportTimeoutMillis?: number };
  /** The span limits of OTEL_SPAN_* (else the general OTEL_ATTRIBUTE_*) that are set. */
  readonly spanLimits: { attributeValueLengthLimit?: number; attributeCountLimit?: number; eventCountLimit?: number; linkCountLimit?: number };
}

/** The samplers of the OpenTelemetry specification's OTEL_TRACES_SAMPLER that the server builds. */
export type TracesSampler = (typeof SAMPLERS)[number];

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const EXPORTERS = ['otlp', 'none'] as const;
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;
/** The OTEL_BSP_* variables and the option of the batch span processor each sets. */
const BATCH = {
  OTEL_BSP_SCHEDULE_DELAY: 'scheduledDelayMillis',
  OTEL_BSP_MAX_QUEUE_SIZE: 'maxQueueSize',
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'maxExportBatchSize',
  OTEL_BSP_EXPORT_TIMEOUT: 'exportTimeoutMillis',
} as const;
/** The span limits, each from its OTEL_SPAN_* variable, else the general OTEL_ATTRIBUTE_* one where there is one. */
const LIMITS = {
  attributeValueLengthLimit: ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'],
  attributeCountLimit: ['OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT'],
  eventCountLimit: ['OTEL_SPAN_EVENT_COUNT_LIMIT'],
  linkCountLimit: ['OTEL_SPAN_LINK_COUNT_LIMIT'],
} as const;

/**
 * Reads the tracing variables with `text` (trimmed, null when unset) and adds a problem for each bad one, whether
 * tracing is on or not. Tracing is on when an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is set, unless
 * OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true; null when it is off.
 */
export function tracingConfig(text: (name: string) => string | null, problems: string[]): TracingConfig | null {
  const oneOf = (name: string, allowed: readonly string[], hint = ''): string | null => {
    const raw = text(name);
    if (raw !== null && !allowed.includes(raw)) problems.push(`${name} must be one of ${allowed.join(', ')}${hint} (got "${raw}")`);
    return raw !== null && allowed.includes(raw) ? raw : null;
  };
  const disabled = oneOf('OTEL_SDK_DISABLED', ['true', 'false']) === 'true';
  const exporter = oneOf('OTEL_TRACES_EXPORTER', EXPORTERS);
  const grpc = ': grpc is not supported';
  const tracesProtocol = oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', PROTOCOLS, grpc);
  const protocol = oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', PROTOCOLS, grpc);
  const sampler = (oneOf('OTEL_TRACES_SAMPLER', SAMPLERS) ?? 'parentbased_always_on') as TracesSampler;
  const ratio = text('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== null && !(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio))) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "${ratio}")`);
  const count = (name: string): number | undefined => {
    const raw = text(name);
    if (raw === null) return undefined;
    if (!/^\d{1,9}$/.test(raw)) {
      problems.push(`${name} must be a whole number (got "${raw}")`);
      return undefined;
    }
    return Number(raw);
  };
  const batch: Record<string, number> = {};
  for (const [name, option] of Object.entries(BATCH)) {
    const value = count(name);
    if (value !== undefined) batch[option] = value;
  }
  const spanLimits: Record<string, number> = {};
  for (const [limit, names] of Object.entries(LIMITS)) {
    const value = names.map(count).find((each) => each !== undefined);
    if (value !== undefined) spanLimits[limit] = value;
  }
  let endpoint = false;
  for (const name of ENDPOINTS) {
    const raw = text(name);
    if (raw === null) continue;
    endpoint = true;
    if (!isHttpUrl(raw)) problems.push(`${name} must be an http(s) URL (got "${maskedUrl(raw)}")`);
  }
  if (disabled || exporter === 'none' || (!endpoint && exporter !== 'otlp')) return null;
  return {
    protocol: (tracesProtocol ?? protocol ?? 'http/protobuf') as TracingConfig['protocol'],
    sampler: { name: sampler, ratio: ratio !== null && problems.length === 0 ? Number(ratio) : 1 },
    batch,
    spanLimits,
  };
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
