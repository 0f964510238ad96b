import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';

const ENDPOINT = 'http://collector.example:4318';
/** What tracing on with nothing else set means. */
const DEFAULTS = { sampler: { name: 'parentbased_always_on', ratio: 1 }, batch: {}, spanLimits: {} };
const on = (protocol: string) => ({ protocol, ...DEFAULTS });

describe('tracing configuration (OTEL_* variables)', () => {
  it('is off without an endpoint or exporter, whatever else is set', () => {
    expect(loadConfig({}).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'desk' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).tracing).to.equal(null);
  });

  it('is on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp, sending protobuf unless told otherwise', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }).tracing).to.deep.equal(on('http/protobuf'));
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }).tracing).to.deep.equal(on('http/protobuf'));
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).to.deep.equal(on('http/protobuf'));
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing).to.deep.equal(on('http/json'));
  });

  it('takes the traces protocol over the general one', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' };
    expect(loadConfig(env).tracing).to.deep.equal(on('http/json'));
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, even with an endpoint', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' }).tracing).to.deep.equal(on('http/protobuf'));
  });

  it('stops the start on a bad value, tracing on or off, naming every bad variable in one line', () => {
    const bad = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml',
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector/v1/traces',
      OTEL_SDK_DISABLED: 'yes',
    };
    let error: unknown;
    try {
      loadConfig(bad);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of Object.keys(bad)) expect(problems.filter((p) => p.startsWith(`${name} `)), name).to.have.length(1);
    expect(problems.find((p) => p.startsWith('OTEL_EXPORTER_OTLP_PROTOCOL '))).to.include('grpc is not supported');
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' })).to.throw(ConfigError, /OTEL_TRACES_SAMPLER_ARG/);
  });

  it('accepts every sampler the SDK knows and ratios from 0 to 1', () => {
    for (const sampler of ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']) {
      expect(() => loadConfig({ OTEL_TRACES_SAMPLER: sampler })).not.to.throw();
    }
    for (const ratio of ['0', '1', '0.25', '.5', '1.0']) expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: ratio }), ratio).not.to.throw();
  });

  it('builds the sampler, the batch span processor and the span limits from their OTEL_* variables (the SDK reads none of them)', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_BSP_EXPORT_TIMEOUT: '2000',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '256',
      OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '128',
      OTEL_ATTRIBUTE_COUNT_LIMIT: '64',
      OTEL_SPAN_EVENT_COUNT_LIMIT: '8',
      OTEL_SPAN_LINK_COUNT_LIMIT: '4',
    }).tracing;
    expect(tracing).to.deep.equal({
      protocol: 'http/protobuf',
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 50, maxQueueSize: 100, maxExportBatchSize: 10, exportTimeoutMillis: 2000 },
      spanLimits: { attributeValueLengthLimit: 128, attributeCountLimit: 64, eventCountLimit: 8, linkCountLimit: 4 },
    });
    for (const name of ['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_SPAN_LINK_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT']) {
      expect(() => loadConfig({ [name]: '-1' }), name).to.throw(ConfigError, new RegExp(`${name} must be a whole number`));
    }
  });
});
