import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';

const ENDPOINT = 'http://collector.example:4318';

describe('tracing configuration (OTEL_* variables)', () => {
  it('is off without an endpoint or exporter, whatever else is set', () => {
    expect(loadConfig({}).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'desk' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).tracing).to.equal(null);
  });

  it('is on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp, sending protobuf unless told otherwise', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }).tracing).to.deep.equal({ protocol: 'http/protobuf' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }).tracing).to.deep.equal({ protocol: 'http/protobuf' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).to.deep.equal({ protocol: 'http/protobuf' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing).to.deep.equal({ protocol: 'http/json' });
  });

  it('takes the traces protocol over the general one', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' };
    expect(loadConfig(env).tracing).to.deep.equal({ protocol: 'http/json' });
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, even with an endpoint', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' }).tracing).to.deep.equal({ protocol: 'http/protobuf' });
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
});
