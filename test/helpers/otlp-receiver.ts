// A local OTLP/HTTP trace receiver (`POST /v1/traces`) for tests and benches: it decodes what the exporter sends
// in either protocol, `http/json` (application/json) and `http/protobuf` (application/x-protobuf, decoded with
// protobufjs over the fields of opentelemetry-proto's ExportTraceServiceRequest that the tests read).
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** A span as received, whatever the protocol: ids in lower-case hex, attribute values as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (opentelemetry-proto's SpanKind). */
  kind: number;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  /** The instrumentation scope's name. */
  scope: string;
  resource: Record<string, unknown>;
}

/** One export request as it arrived. */
export interface ReceivedExport {
  contentType: string;
  path: string;
  spans: number;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly exports: ReceivedExport[];
  /** Resolves with `check`'s value once it is neither undefined nor false, checked after every export; rejects after `ms`. */
  until<T>(check: () => T | undefined | false, ms?: number, what?: string): Promise<T>;
  close(): Promise<void>;
}

/** opentelemetry-proto's SpanKind values. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** The part of opentelemetry-proto (common, resource, trace, collector/trace) the tests read; field numbers as there. */
const OTLP = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
            arrayValue: { type: 'ArrayValue', id: 5 },
            kvlistValue: { type: 'KeyValueList', id: 6 },
            bytesValue: { type: 'bytes', id: 7 },
          },
        },
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
        InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            status: { type: 'Status', id: 15 },
          },
        },
        ScopeSpans: { fields: { scope: { type: 'InstrumentationScope', id: 1 }, spans: { rule: 'repeated', type: 'Span', id: 2 } } },
        ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
        ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
      },
    },
  },
});
const ExportTraceServiceRequest = OTLP.lookupType('otlp.ExportTraceServiceRequest');

type Json = Record<string, any>;

function anyValue(value: Json | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return ((value.arrayValue?.values ?? []) as Json[]).map(anyValue);
  return undefined;
}

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const entry of list ?? []) attributes[entry.key as string] = anyValue(entry.value as Json | undefined);
  return attributes;
}

/** ids arrive as hex text (JSON) or bytes (protobuf, base64 after toObject). */
function hexOf(id: unknown, json: boolean): string {
  if (typeof id !== 'string' || id === '') return '';
  return json ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function spansOf(request: Json, json: boolean): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans ?? []) as Json[]) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of (resourceSpans.scopeSpans ?? []) as Json[]) {
      for (const span of (scopeSpans.spans ?? []) as Json[]) {
        spans.push({
          traceId: hexOf(span.traceId, json),
          spanId: hexOf(span.spanId, json),
          parentSpanId: hexOf(span.parentSpanId, json),
          name: span.name as string,
          kind: Number(span.kind ?? 0),
          attributes: attributesOf(span.attributes),
          status: Number(span.status?.code ?? 0),
          scope: (scopeSpans.scope?.name as string | undefined) ?? '',
          resource,
        });
      }
    }
  }
  return spans;
}

/** Starts the receiver on 127.0.0.1 and an ephemeral port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  const arrived = new EventEmitter();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      const body = Buffer.concat(chunks);
      let received: ReceivedSpan[];
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`unexpected ${req.method} ${req.url}`);
        if (contentType === 'application/json') received = spansOf(JSON.parse(body.toString('utf8')) as Json, true);
        else if (contentType === 'application/x-protobuf') {
          const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, bytes: String, defaults: false });
          received = spansOf(decoded as Json, false);
        } else throw new Error(`unexpected content type ${contentType}`);
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end((err as Error).message);
        return;
      }
      spans.push(...received);
      exports.push({ contentType, path: req.url, spans: received.length });
      // an empty ExportTraceServiceResponse: {} in JSON, no bytes in protobuf
      res.writeHead(200, { 'content-type': contentType }).end(contentType === 'application/json' ? '{}' : '');
      arrived.emit('export');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports,
    until<T>(check: () => T | undefined | false, ms = 20_000, what = 'spans'): Promise<T> {
      return new Promise((resolve, reject) => {
        const settle = (): boolean => {
          const value = check();
          if (value === undefined || value === false) return false;
          clearTimeout(timer);
          arrived.off('export', onExport);
          resolve(value);
          return true;
        };
        const onExport = (): void => {
          try {
            settle();
          } catch (err) {
            clearTimeout(timer);
            arrived.off('export', onExport);
            reject(err as Error);
          }
        };
        const timer = setTimeout(() => {
          arrived.off('export', onExport);
          reject(new Error(`timed out after ${ms} ms waiting for ${what}; received ${spans.length} spans: ${spans.map((s) => s.name).join(', ')}`));
        }, ms);
        arrived.on('export', onExport);
        onExport();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
