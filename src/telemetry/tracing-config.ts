/** What the server decides itself of the OTEL_* variables (docs/configuration.md, "Tracing"); the SDK reads the rest. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: how spans are sent. */
  readonly protocol: 'http/protobuf' | 'http/json';
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const EXPORTERS = ['otlp', 'none'] as const;
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;

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
  oneOf('OTEL_TRACES_SAMPLER', SAMPLERS);
  const ratio = text('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== null && !(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio))) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "${ratio}")`);
  let endpoint = false;
  for (const name of ENDPOINTS) {
    const raw = text(name);
    if (raw === null) continue;
    endpoint = true;
    if (!isHttpUrl(raw)) problems.push(`${name} must be an http(s) URL (got "${raw}")`);
  }
  if (disabled || exporter === 'none' || (!endpoint && exporter !== 'otlp')) return null;
  return { protocol: (tracesProtocol ?? protocol ?? 'http/protobuf') as TracingConfig['protocol'] };
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
