import { expect } from 'chai';
import path from 'node:path';
import { APP_DB_DEFAULT_SIZES, ConfigError, configSecrets, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('applies the defaults of docs/configuration.md and switches the demo on', () => {
    const config = loadConfig({}, '/srv/app', 2, null);
    expect(config).to.deep.include({ port: 8080, host: '127.0.0.1', klsMode: 'local', demo: true, storeConcurrency: 4, responseValidation: true });
    expect(config.klsDir).to.equal(path.join('/srv/app/data', 'kls'));
    expect(config.appDb).to.deep.equal({ kind: 'sqlite', path: '/srv/app/data/app.sqlite', ...APP_DB_DEFAULT_SIZES });
    expect(config.githubApiUrl).to.equal('https://api.github.com');
    expect(config.searchMemoryBytes).to.equal(256 * 1024 * 1024);
    expect(config.tenantHandlesMax).to.equal(32);
    expect(loadConfig({ SEARCH_MEMORY_MB: '0' }).searchMemoryBytes).to.equal(0);
    // inside a memory limit, a quarter of it by default, at most 256 MB; a value given is taken as it is
    expect(loadConfig({}, '/srv/app', 2, 256 * 2 ** 20).searchMemoryBytes).to.equal(64 * 2 ** 20);
    expect(loadConfig({}, '/srv/app', 2, 4096 * 2 ** 20).searchMemoryBytes).to.equal(256 * 2 ** 20);
    expect(loadConfig({ SEARCH_MEMORY_MB: '200' }, '/srv/app', 2, 256 * 2 ** 20).searchMemoryBytes).to.equal(200 * 2 ** 20);
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
      loadConfig({ PORT: 'eighty', KLS_MODE: 'cloud', RESPONSE_VALIDATION: 'maybe', APP_DB_URL: 'mysql://x', SEARCH_MEMORY_MB: '1.5' });
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

  it('bounds the store cache only when STORE_CACHE_MAX_MB is set, and reads the warm list, the fetch wait and the poll', () => {
    const store = { KLS_MODE: 'store', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_BUCKET: 'kls' };
    expect(loadConfig(store).storeCache).to.deep.equal({ maxBytes: null, warm: [], fetchWaitMs: 10_000, pollSeconds: null });
    const bounded = loadConfig({ ...store, STORE_CACHE_MAX_MB: '512', STORE_WARM: ' ost.kantonsspital, west.*,ost.kantonsspital ', STORE_FETCH_WAIT_MS: '0', STORE_POLL_S: '300' });
    expect(bounded.storeCache).to.deep.equal({ maxBytes: 512 * 1024 * 1024, warm: ['ost.kantonsspital', 'west.*'], fetchWaitMs: 0, pollSeconds: 300 });
  });

  it('refuses a cache bound of 0, warm entries that are neither tenant nor pack, and a poll of 0 seconds', () => {
    const store = { KLS_MODE: 'store', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_BUCKET: 'kls' };
    for (const [name, value] of [
      ['STORE_CACHE_MAX_MB', '0'],
      ['STORE_CACHE_MAX_MB', '1.5'],
      ['STORE_WARM', 'kantonsspital'],
      ['STORE_WARM', 'ost.*.x'],
      ['STORE_WARM', '*.kantonsspital'],
      ['STORE_WARM', 'ost/../x.y'],
      ['STORE_POLL_S', '0'],
      ['STORE_FETCH_WAIT_MS', '600001'],
    ] as const) {
      expect(() => loadConfig({ ...store, [name]: value }), `${name}=${value}`).to.throw(ConfigError, new RegExp(name));
    }
  });

  it('has no sign-in by default and limits costly work per caller', () => {
    const config = loadConfig({});
    expect(config.auth).to.deep.equal({ mode: 'none' });
    expect(config.limits).to.deep.equal({ narrativesPerMinute: 10, exportsPerCaller: 2, signalToolsPerMinute: 60, tenantFetchesPerMinute: 60, exportLeaseMs: 30_000 });
    expect(loadConfig({ NARRATIVE_PER_MINUTE: '0', EXPORTS_PER_CALLER: '5' }).limits).to.deep.include({ narrativesPerMinute: 0, exportsPerCaller: 5 });
  });

  it('reads the OpenID settings with AUTH_MODE=oidc, keeping the issuer exactly as given', () => {
    const config = loadConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://tenant.auth0.example/', OIDC_AUDIENCE: 'https://desk.example/api', OIDC_ROLES_CLAIM: 'realm_access.roles' });
    expect(config.auth).to.deep.equal({
      mode: 'oidc',
      issuer: 'https://tenant.auth0.example/',
      audience: 'https://desk.example/api',
      clockToleranceS: 30,
      tenantsClaim: 'tenants',
      rolesClaim: 'realm_access.roles',
    });
    expect(loadConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://127.0.0.1:8180/realms/desk', OIDC_AUDIENCE: 'desk' }).auth.mode).to.equal('oidc');
  });

  it('refuses missing or unsafe OpenID settings, and OIDC_* without AUTH_MODE=oidc, in one line', () => {
    const message = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        expect((err as Error).message).not.to.include('\n');
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(message({ AUTH_MODE: 'oidc' })).to.match(/OIDC_ISSUER is required.*OIDC_AUDIENCE is required/);
    expect(message({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://login.example/realms/desk', OIDC_AUDIENCE: 'desk' })).to.match(/OIDC_ISSUER must be an https URL/);
    expect(message({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example/?a=1', OIDC_AUDIENCE: 'desk' })).to.match(/OIDC_ISSUER must be/);
    expect(message({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example', OIDC_AUDIENCE: 'desk', OIDC_CLOCK_TOLERANCE_S: '-1' })).to.match(/OIDC_CLOCK_TOLERANCE_S/);
    expect(message({ AUTH_MODE: 'sso' })).to.match(/AUTH_MODE must be one of none, oidc/);
    // a forgotten AUTH_MODE must not leave a server meant to ask for tokens open to everyone
    expect(message({ OIDC_ISSUER: 'https://login.example', OIDC_AUDIENCE: 'desk' })).to.match(/OIDC_AUDIENCE, OIDC_ISSUER set but AUTH_MODE is not/);
    expect(message({ EXPORTS_PER_CALLER: 'many' })).to.match(/EXPORTS_PER_CALLER/);
  });

  it('reads a PostgreSQL APP_DB_URL as given, with pool and lock timeout, and never shows its password in an error', () => {
    const url = 'postgresql://desk:s3cret@db.example:5432/desk?sslmode=verify-full';
    expect(loadConfig({ APP_DB_URL: url, APP_DB_POOL: '25' }).appDb).to.deep.equal({ kind: 'postgres', url, ...APP_DB_DEFAULT_SIZES, pool: 25 });
    for (const bad of ['postgres://desk:s3cret@db.example:5432/', 'postgres://desk:s3cret@db.example/desk?sslmode=sometimes', 'postgres://desk:s3cret@:5432/desk']) {
      let message = '';
      try {
        loadConfig({ APP_DB_URL: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, bad).to.match(/APP_DB_URL/);
      expect(message, bad).not.to.include('s3cret');
    }
    expect(() => loadConfig({ APP_DB_POOL: '0' })).to.throw(ConfigError, /APP_DB_POOL/);
  });

  it('never shows a secret of a URL setting in the error line: query passwords, unparsable URLs, passwords with reserved characters', () => {
    const messageOf = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    };
    const unparsable = messageOf({ APP_DB_URL: 'postgres://u@h:99999/x?password=s3cret' });
    expect(unparsable).to.equal('invalid configuration: APP_DB_URL must be sqlite:<path> or postgres://user:password@host:port/database (got "postgres:***"; percent-encode reserved characters in the user name and password (/ as %2F))');
    // a password with an unencoded `/` is refused, not echoed, with the way to write it
    const slash = messageOf({ APP_DB_URL: 'postgres://desk:ab/s3cret@db.example/desk' });
    expect(slash).to.match(/APP_DB_URL .*\(got "postgres:\*\*\*"; percent-encode reserved characters .*%2F\)\)$/);
    expect(messageOf({ APP_DB_URL: 'postgres://desk:123/s3cret@db.example/desk' })).to.match(/got "postgres:\*\*\*"/);
    // a path without `sqlite:` is refused without the advice on passwords, which would mislead
    expect(messageOf({ APP_DB_URL: '/var/lib/desk/app.sqlite' })).to.equal('invalid configuration: APP_DB_URL must be sqlite:<path> or postgres://user:password@host:port/database (got "***")');
    // the secrets the log masks wherever they stand: the URL's password and credential parameters, the keys and
    // tokens; none shorter than 4 characters (`1` would mask every digit)
    const secrets = configSecrets(
      loadConfig({ APP_DB_URL: 'postgres://desk:pa%2Fss@db.example/desk?sslkey=/etc/desk/client.key&sslpassword=abc', S3_SECRET_KEY: 'minio-secret', GITHUB_TOKEN: 'ghp_token', ANTHROPIC_API_KEY: 'sk-ant-key' }),
    );
    expect(secrets).to.have.members(['pa%2Fss', 'pa%252Fss', 'pa/ss', '/etc/desk/client.key', '%2Fetc%2Fdesk%2Fclient.key', 'minio-secret', 'ghp_token', 'sk-ant-key']);
    expect(configSecrets(loadConfig({}))).to.deep.equal([]);
    // encoded, it is read
    expect(loadConfig({ APP_DB_URL: 'postgres://desk:ab%2Fs3cret@db.example/desk' }).appDb.kind).to.equal('postgres');
    const query = messageOf({ APP_DB_URL: 'postgres://u@db.example/desk?password=s3cret&sslmode=sometimes' });
    expect(query).to.match(/APP_DB_URL sslmode must be one of/);
    const others = messageOf({
      KLS_MODE: 'store',
      S3_BUCKET: 'kls',
      S3_ENDPOINT: 'ftp://key:s3cret@minio.example',
      GITHUB_API_URL: 'https://api.example/?token=s3cret&x=',
      ANTHROPIC_BASE_URL: 'http://u:s3cret@[::1',
      CORS_ORIGINS: 'https://u:s3cret@ui.example/desk',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://u:s3cret@collector.example',
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: 'https://idp.example/?client_secret=s3cret',
      OIDC_AUDIENCE: 'desk',
    });
    for (const name of ['S3_ENDPOINT', 'ANTHROPIC_BASE_URL', 'CORS_ORIGINS', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OIDC_ISSUER']) expect(others).to.include(name);
    for (const message of [unparsable, slash, query, others]) expect(message).not.to.include('s3cret');
    expect(others).to.include('(got "ftp://key:***@minio.example/")');
    expect(others).to.include('(got "https://idp.example/?client_secret=***")');
    // an issuer with a password and no user name is refused too (it would be logged at start)
    const issuer = messageOf({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://:s3cret@idp.example', OIDC_AUDIENCE: 'desk' });
    expect(issuer).to.include('OIDC_ISSUER must be an https URL without query or fragment');
    expect(issuer).not.to.include('s3cret');
  });

  it('starts a desk without sign-in beyond loopback only with ALLOWED_HOSTS, saying why in one line', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(loadConfig({ HOST: host }).allowedHosts, host).to.equal(null);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'desk.example.org']) {
      expect(() => loadConfig({ HOST: host }), host).to.throw(ConfigError, /^invalid configuration: HOST=\S+ listens beyond this machine without sign-in; set ALLOWED_HOSTS/);
    }
    expect(loadConfig({ HOST: '0.0.0.0', ALLOWED_HOSTS: 'Desk.Example.org, *.corp.example ,10.0.0.5,[fd00::5]' }).allowedHosts).to.deep.equal([
      'desk.example.org',
      '*.corp.example',
      '10.0.0.5',
      '[fd00::5]',
    ]);
    const oidc = { AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example/realms/desk', OIDC_AUDIENCE: 'desk' };
    expect(loadConfig({ ...oidc, HOST: '0.0.0.0' }).allowedHosts).to.equal(null);
  });

  it('refuses ALLOWED_HOSTS entries that are not host names', () => {
    for (const entry of ['desk.example.org:8080', 'http://desk.example.org', 'desk/x', 'a..b', '*desk.example']) {
      expect(() => loadConfig({ ALLOWED_HOSTS: entry }), entry).to.throw(ConfigError, /ALLOWED_HOSTS entries must be host names/);
    }
  });

  it('reads exports and explains on reader threads by default only where there is more than one core', () => {
    expect(loadConfig({}, '/srv', 2).readerThreads).to.equal(true);
    expect(loadConfig({}, '/srv', 1).readerThreads).to.equal(false);
    expect(loadConfig({ READER_THREADS: 'on' }, '/srv', 1).readerThreads).to.equal(true);
    expect(loadConfig({ READER_THREADS: 'off' }, '/srv', 8).readerThreads).to.equal(false);
    expect(() => loadConfig({ READER_THREADS: 'yes' })).to.throw(ConfigError, /READER_THREADS/);
  });

  it('answers the searches of large sidecars on the search thread by default only where there is more than one core', () => {
    expect(loadConfig({}, '/srv', 2).searchThread).to.equal(true);
    expect(loadConfig({}, '/srv', 1).searchThread).to.equal(false);
    expect(loadConfig({ SEARCH_THREAD: 'on' }, '/srv', 1).searchThread).to.equal(true);
    expect(loadConfig({ SEARCH_THREAD: 'off' }, '/srv', 8).searchThread).to.equal(false);
    expect(() => loadConfig({ SEARCH_THREAD: 'yes' })).to.throw(ConfigError, /SEARCH_THREAD/);
  });
});
