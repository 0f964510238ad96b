import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('applies the defaults of design.md section 2 and switches the demo on', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).to.deep.include({ port: 8080, host: '127.0.0.1', klsMode: 'local', demo: true, storeConcurrency: 4, responseValidation: true });
    expect(config.klsDir).to.equal(path.join('/srv/app/data', 'kls'));
    expect(config.appDbPath).to.equal('/srv/app/data/app.sqlite');
    expect(config.githubApiUrl).to.equal('https://api.github.com');
    expect(config.searchMemoryBytes).to.equal(128 * 1024 * 1024);
    expect(loadConfig({ SEARCH_MEMORY_MB: '0' }).searchMemoryBytes).to.equal(0);
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('turns the demo off when KLS_DIR is set, and adds the trailing slash to S3_PREFIX', () => {
    expect(loadConfig({ KLS_DIR: '/k' }).demo).to.equal(false);
    const store = loadConfig({ KLS_MODE: 'store', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_BUCKET: 'kls', S3_PREFIX: 'prod' });
    expect(store.s3.prefix).to.equal('prod/');
    expect(store.demo).to.equal(false);
  });

  it('reports every bad variable in one line', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', KLS_MODE: 'cloud', RESPONSE_VALIDATION: 'maybe', APP_DB_URL: 'postgres://x', SEARCH_MEMORY_MB: '1.5' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.to.include('\n');
    for (const name of ['PORT', 'KLS_MODE', 'RESPONSE_VALIDATION', 'APP_DB_URL', 'SEARCH_MEMORY_MB']) expect(message).to.include(name);
  });

  it('requires the bucket and endpoint in store mode', () => {
    expect(() => loadConfig({ KLS_MODE: 'store' })).to.throw(ConfigError, /S3_ENDPOINT.*S3_BUCKET/);
  });
});
