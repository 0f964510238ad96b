import os from 'node:os';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { maskedUrl, readableUrl, urlSecrets } from './common/secrets.js';
import { tracingConfig, type TracingConfig } from './telemetry/tracing-config.js';
import { DEFAULT_TENANT_HANDLES_MAX } from './tenants/handle-pool.js';
import { SLUG_PATTERN } from './tenants/tenants.js';

/** Validated, frozen server configuration (docs/configuration.md). */
export interface Config {
  readonly port: number;
  readonly host: string;
  /**
   * ALLOWED_HOSTS: host names (`desk.example.org`, `*.example.org`, `*`) a request's `Host` may name besides the
   * loopback ones; null when unset (without sign-in: loopback names only; with sign-in: any host).
   */
  readonly allowedHosts: readonly string[] | null;
  readonly dataDir: string;
  readonly klsMode: 'local' | 'store';
  readonly klsDir: string;
  /** True when neither KLS_DIR nor KLS_MODE=store was given: the demo data is generated on first start. */
  readonly demo: boolean;
  readonly s3: {
    readonly endpoint: string | null;
    readonly bucket: string | null;
    readonly prefix: string;
    readonly accessKey: string | null;
    readonly secretKey: string | null;
    readonly region: string;
  };
  readonly storeConcurrency: number;
  /** STORE_CONNECT_TIMEOUT_MS, STORE_FIRST_BYTE_TIMEOUT_MS, STORE_IDLE_TIMEOUT_MS: every object-store request's time limits. */
  readonly storeDeadlines: StoreDeadlines;
  /** Store mode's local cache: its bound, the tenants kept warm, how long a request waits for a fetch, the poll. */
  readonly storeCache: StoreCacheConfig;
  /** The app database (views, notebooks, notes): APP_DB_URL, APP_DB_POOL, APP_DB_LOCK_TIMEOUT_MS. */
  readonly appDb: AppDbConfig;
  readonly afsDir: string;
  readonly logoDir: string;
  readonly gitWorkspacesDir: string | null;
  readonly githubApiUrl: string;
  readonly githubToken: string | null;
  readonly driftTimeoutMs: number;
  readonly anthropicApiKey: string | null;
  readonly anthropicBaseUrl: string | null;
  readonly narrativeModel: string;
  /** Time limit of one language-model call (NARRATIVE_TIMEOUT_MS); past it the narrative is 502. */
  readonly narrativeTimeoutMs: number;
  /** SIGNAL_CHECKER_CMD / SIGNAL_COMPILER_CMD as an argument vector (a JSON array, or one executable path); null = bundled CLI. */
  readonly signalCheckerCmd: readonly string[] | null;
  readonly signalCompilerCmd: readonly string[] | null;
  /** Time limit of one checker or compiler answer (SIGNAL_TOOL_TIMEOUT_MS). */
  readonly signalToolTimeoutMs: number;
  readonly responseValidation: boolean;
  /**
   * SEARCH_MEMORY_MB in bytes: budget for search names (and a large tenant's hits) held in memory over all tenants
   * (0: always the sidecar). By default a quarter of the process's memory limit, at most 256 MB (which holds those of
   * three tenants of 200,000 search items each); 256 MB without a limit.
   */
  readonly searchMemoryBytes: number;
  /**
   * READER_THREADS: exports and explain's counts read the tenant file on reader threads (docs/decisions/0009); off,
   * on the main thread in bounded steps. Off by default where the machine has one core, like every worker thread.
   */
  readonly readerThreads: boolean;
  /**
   * SEARCH_THREAD: the searches of sidecars of more than 500 items, and their names in memory, on a thread of their
   * own beside the main thread (docs/decisions/0017); off, on the main thread. Off by default where the machine has
   * one core.
   */
  readonly searchThread: boolean;
  /**
   * TENANT_HANDLES_MAX: open tenant connections (KLS files), and as many open search sidecars, beyond which
   * idle ones are closed, least recently used first, and reopened on demand.
   */
  readonly tenantHandlesMax: number;
  readonly corsOrigins: readonly string[];
  /** METRICS=on: `GET /metrics` serves Prometheus metrics; off: nothing is recorded and it answers 404. */
  readonly metricsEnabled: boolean;
  /** Sign-in: none (a local desk: no token, identity from git) or OpenID Connect bearer tokens (docs/sign-in.md). */
  readonly auth: AuthConfig;
  /** Limits on costly work per caller; 0 switches a limit off. */
  readonly limits: CostLimitsConfig;
  /** TRUST_PROXY: whose `X-Forwarded-For`/`-Host` the server believes; null (the default): nobody's. */
  readonly trustProxy: TrustProxy | null;
  /** SHUTDOWN_DELAY_MS and SHUTDOWN_TIMEOUT_MS: how a SIGTERM drains the server. */
  readonly shutdown: ShutdownConfig;
  /** The tenants' event streams: keep-alive, retry, the resume window, the bounds on open streams (docs/live-updates.md). */
  readonly events: EventsConfig;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Traces over OTLP when an OTEL_* endpoint or exporter asks for them; null: no tracing, nothing of it loaded. */
  readonly tracing: TracingConfig | null;
}

/** STORE_CACHE_MAX_MB, STORE_WARM, STORE_FETCH_WAIT_MS and STORE_POLL_S (docs/object-store.md, "The bounded cache"). */
export interface StoreCacheConfig {
  /** STORE_CACHE_MAX_MB in bytes; null: every tenant is downloaded at start and kept (no bound). */
  readonly maxBytes: number | null;
  /** STORE_WARM: tenants (`<pack>.<slug>`) and packs (`<pack>.*`) fetched at start when the cache is bounded. */
  readonly warm: readonly string[];
  /** STORE_FETCH_WAIT_MS: how long a request waits for its tenant's fetch before it answers 503 with Retry-After. */
  readonly fetchWaitMs: number;
  /** STORE_POLL_S: seconds between syncs with the store of their own; null: only at start and on refresh. */
  readonly pollSeconds: number | null;
}

/** Time limits of every request to the object store (docs/object-store.md, "When the store fails"). */
export interface StoreDeadlines {
  /** STORE_CONNECT_TIMEOUT_MS: from the request's start until its connection is open. */
  readonly connectMs: number;
  /** STORE_FIRST_BYTE_TIMEOUT_MS: from the request sent until the answer's first byte. */
  readonly firstByteMs: number;
  /** STORE_IDLE_TIMEOUT_MS: the longest pause between two bytes of an answer. */
  readonly idleMs: number;
}

/** Most entries STORE_WARM may hold. */
export const MAX_WARM_ENTRIES = 10_000;

/** APP_DB_URL as SQLite file or PostgreSQL URL, with the pool size and the lock wait of writes. */
export type AppDbConfig = (
  | { readonly kind: 'sqlite'; readonly path: string }
  | {
      readonly kind: 'postgres';
      /** The URL as given (node-postgres reads sslmode and every other parameter from it). */
      readonly url: string;
    }
) & {
  /** APP_DB_POOL: connections per instance (PostgreSQL). */
  readonly pool: number;
  /** APP_DB_LOCK_TIMEOUT_MS: how long a write waits for its lock before it answers 503 (SQLite: busy timeout). */
  readonly lockTimeoutMs: number;
  /** APP_DB_STATEMENT_TIMEOUT_MS: longest one statement may run (PostgreSQL `statement_timeout`). */
  readonly statementTimeoutMs: number;
  /** APP_DB_IDLE_TIMEOUT_MS: longest a transaction may wait for its next statement (PostgreSQL `idle_in_transaction_session_timeout`). */
  readonly idleInTransactionTimeoutMs: number;
  /** APP_DB_TRANSACTION_TIMEOUT_MS: longest one unit of work may take, from asking for a connection to its commit (PostgreSQL). */
  readonly transactionTimeoutMs: number;
};

/** The time limits of the app database when a program names one on its command line. */
export const APP_DB_DEFAULT_SIZES = { pool: 10, lockTimeoutMs: 5000, statementTimeoutMs: 10_000, idleInTransactionTimeoutMs: 10_000, transactionTimeoutMs: 15_000 } as const;

/** AUTH_MODE and, for `oidc`, the OIDC_* variables. */
export type AuthConfig =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'oidc';
      /** OIDC_ISSUER exactly as given: `iss` must equal it; discovery is read below it. */
      readonly issuer: string;
      /** OIDC_AUDIENCE: `aud` must contain it. */
      readonly audience: string;
      readonly clockToleranceS: number;
      /** Claim names (OIDC_TENANTS_CLAIM, OIDC_ROLES_CLAIM). */
      readonly tenantsClaim: string;
      readonly rolesClaim: string;
    };

/** NARRATIVE_PER_MINUTE, EXPORTS_PER_CALLER, SIGNAL_TOOLS_PER_MINUTE, TENANT_FETCHES_PER_MINUTE, EXPORT_LEASE_MS. */
export interface CostLimitsConfig {
  readonly narrativesPerMinute: number;
  readonly exportsPerCaller: number;
  readonly signalToolsPerMinute: number;
  /** Requests per minute that find their tenant not in the bounded store cache and start its fetch. */
  readonly tenantFetchesPerMinute: number;
  /** With a PostgreSQL app database: how long an export's slot outlives its last renewal (an instance killed mid-export). */
  readonly exportLeaseMs: number;
}

/** TRUST_PROXY: a number of proxy hops in front of the server, or the addresses and CIDR ranges of its proxies. */
export type TrustProxy = { readonly kind: 'hops'; readonly hops: number } | { readonly kind: 'addresses'; readonly addresses: readonly string[] };

/** What SIGTERM does: readiness 503 at once, serving on for `delayMs`, then at most `timeoutMs` to drain. */
export interface ShutdownConfig {
  readonly delayMs: number;
  readonly timeoutMs: number;
}

/** EVENTS_*: the event streams of `GET /{tenant}/api/events` (docs/live-updates.md). */
export interface EventsConfig {
  /** EVENTS_KEEPALIVE_MS: the longest a stream stays silent; a comment line is sent then. */
  readonly keepAliveMs: number;
  /** EVENTS_RETRY_MS: the `retry:` a stream begins with (how long a browser waits before it reconnects). */
  readonly retryMs: number;
  /** EVENTS_RESUME_EVENTS: events of a tenant kept for resuming with Last-Event-ID. */
  readonly resumeEvents: number;
  /** EVENTS_RESUME_MS: how old a kept event may be. */
  readonly resumeMs: number;
  /** EVENTS_STREAMS_PER_CALLER: streams open at once per caller. */
  readonly streamsPerCaller: number;
  /** EVENTS_STREAMS_MAX: streams open at once on this instance. */
  readonly streamsMax: number;
}

/** Thrown by loadConfig; the message is one line naming every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_NARRATIVE_MODEL = 'claude-sonnet-5-5';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** The most SEARCH_MEMORY_MB is by default, in MB, and the share of a memory limit it takes below that. */
const SEARCH_MEMORY_MB_MOST = 256;
const SEARCH_MEMORY_SHARE = 4;

/**
 * The process's memory limit in bytes (a container's, a memory cgroup's: `process.constrainedMemory()`), or null
 * when it has none below the machine's memory.
 */
export function memoryLimitOf(): number | null {
  const limit = process.constrainedMemory();
  return limit > 0 && limit < os.totalmem() ? limit : null;
}

/**
 * SEARCH_MEMORY_MB when unset: the names and hits of search indexes are a speed-up, so inside a memory limit they get a
 * quarter of it and leave the rest to the work; 256 MB at most.
 */
export function defaultSearchMemoryMb(memoryLimitBytes: number | null): number {
  if (memoryLimitBytes === null) return SEARCH_MEMORY_MB_MOST;
  return Math.min(SEARCH_MEMORY_MB_MOST, Math.floor(memoryLimitBytes / SEARCH_MEMORY_SHARE / 2 ** 20));
}

/**
 * Reads every variable of docs/configuration.md from `env`, validates them together, and returns a frozen Config.
 * `cores` (os.availableParallelism) decides the defaults of the worker threads kept for speed, `memoryLimitBytes`
 * (the process's memory limit, or null) that of the search's memory.
 */
export function loadConfig(env: Env, cwd: string = process.cwd(), cores: number = os.availableParallelism(), memoryLimitBytes: number | null = memoryLimitOf()): Config {
  const problems: string[] = [];
  const text = (name: string): string | null => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? null : value.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = text(name);
    if (raw === null) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const url = (name: string, fallback: string | null): string | null => {
    const raw = text(name);
    if (raw === null) return fallback;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${maskedUrl(raw)}")`);
      return fallback;
    }
  };
  const dir = (value: string): string => path.resolve(cwd, value);
  // A command is never a shell string: a JSON array of arguments, or one executable path taken whole.
  const argumentVector = (name: string): string[] | null => {
    const raw = text(name);
    if (raw === null) return null;
    let argv: unknown = [raw];
    if (raw.startsWith('[')) {
      try {
        argv = JSON.parse(raw);
      } catch {
        argv = null;
      }
    }
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string' && a !== '' && !a.includes('\u0000'))) {
      problems.push(`${name} must be a JSON array of non-empty strings (program first) or one executable path (got "${raw}")`);
      return null;
    }
    return argv as string[];
  };

  const port = integer('PORT', 8080, 0, 65535);
  const host = text('HOST') ?? '127.0.0.1';
  const allowedHosts = hostPatterns(text('ALLOWED_HOSTS'), problems);
  const dataDir = dir(text('DATA_DIR') ?? './data');
  const klsMode = oneOf('KLS_MODE', ['local', 'store'] as const, 'local');
  const klsDirRaw = text('KLS_DIR');
  const klsDir = klsDirRaw === null ? path.join(dataDir, 'kls') : dir(klsDirRaw);

  const endpoint = url('S3_ENDPOINT', null);
  const bucket = text('S3_BUCKET');
  let prefix = text('S3_PREFIX') ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  if (klsMode === 'store') {
    if (endpoint === null && text('S3_ENDPOINT') === null) problems.push('S3_ENDPOINT is required when KLS_MODE=store');
    if (bucket === null) problems.push('S3_BUCKET is required when KLS_MODE=store');
    else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) problems.push(`S3_BUCKET is not a valid bucket name (got "${bucket}")`);
  }

  const appDb = appDbConfig(text('APP_DB_URL'), path.join(dataDir, 'app.sqlite'), dir, problems, {
    pool: integer('APP_DB_POOL', 10, 1, 1000),
    lockTimeoutMs: integer('APP_DB_LOCK_TIMEOUT_MS', APP_DB_DEFAULT_SIZES.lockTimeoutMs, 100, 120_000),
    statementTimeoutMs: integer('APP_DB_STATEMENT_TIMEOUT_MS', APP_DB_DEFAULT_SIZES.statementTimeoutMs, 100, 600_000),
    idleInTransactionTimeoutMs: integer('APP_DB_IDLE_TIMEOUT_MS', APP_DB_DEFAULT_SIZES.idleInTransactionTimeoutMs, 100, 600_000),
    transactionTimeoutMs: integer('APP_DB_TRANSACTION_TIMEOUT_MS', APP_DB_DEFAULT_SIZES.transactionTimeoutMs, 500, 600_000),
  });

  const auth = authConfig(env, text, integer, oneOf, problems);
  // A desk without sign-in listening beyond this machine would answer any page a user opens (DNS rebinding):
  // it starts only when the operator names the host names it is reached under.
  if (auth.mode === 'none' && allowedHosts === null && !isLoopbackAddress(host)) {
    problems.push(`HOST=${host} listens beyond this machine without sign-in; set ALLOWED_HOSTS to the host names clients use (or AUTH_MODE=oidc)`);
  }

  const trust = trustProxy(text('TRUST_PROXY'), problems);
  // Without sign-in the client address is the only identity the limits and the audit have, and the forwarded host
  // the only one the host check sees behind a proxy: a proxy the server cannot tell apart from any program or page
  // on this machine (or, for a hop count, from any client) would let each choose its own.
  if (auth.mode === 'none' && trust !== null && trustsLocalPeers(trust)) {
    problems.push(
      `TRUST_PROXY=${text('TRUST_PROXY')} trusts ${trust.kind === 'hops' ? 'every client that reaches the port' : 'programs on this machine'} as a proxy without sign-in, so any of them could choose its own client address and host; list only the proxy's address on another machine, or turn sign-in on (AUTH_MODE=oidc)`,
    );
  }

  const config: Config = {
    port,
    host,
    allowedHosts,
    dataDir,
    klsMode,
    klsDir,
    demo: klsMode === 'local' && klsDirRaw === null,
    s3: {
      endpoint,
      bucket,
      prefix,
      accessKey: text('S3_ACCESS_KEY'),
      secretKey: text('S3_SECRET_KEY'),
      region: text('S3_REGION') ?? 'us-east-1',
    },
    storeConcurrency: integer('STORE_CONCURRENCY', 4, 1, 64),
    storeDeadlines: {
      connectMs: integer('STORE_CONNECT_TIMEOUT_MS', 5_000, 1, 600_000),
      firstByteMs: integer('STORE_FIRST_BYTE_TIMEOUT_MS', 15_000, 1, 600_000),
      idleMs: integer('STORE_IDLE_TIMEOUT_MS', 15_000, 1, 600_000),
    },
    storeCache: {
      maxBytes: text('STORE_CACHE_MAX_MB') === null ? null : integer('STORE_CACHE_MAX_MB', 0, 1, 16_777_216) * 1024 * 1024,
      warm: warmList(text('STORE_WARM'), problems),
      fetchWaitMs: integer('STORE_FETCH_WAIT_MS', 10_000, 0, 600_000),
      pollSeconds: text('STORE_POLL_S') === null ? null : integer('STORE_POLL_S', 0, 1, 86_400),
    },
    appDb,
    afsDir: dir(text('AFS_DIR') ?? path.join(dataDir, 'afs')),
    logoDir: dir(text('LOGO_DIR') ?? path.join(dataDir, 'logos')),
    gitWorkspacesDir: text('GIT_WORKSPACES_DIR') === null ? null : dir(text('GIT_WORKSPACES_DIR') as string),
    githubApiUrl: url('GITHUB_API_URL', 'https://api.github.com') ?? 'https://api.github.com',
    githubToken: text('GITHUB_TOKEN'),
    driftTimeoutMs: integer('DRIFT_TIMEOUT_MS', 10_000, 100, 120_000),
    anthropicApiKey: text('ANTHROPIC_API_KEY'),
    anthropicBaseUrl: url('ANTHROPIC_BASE_URL', null),
    narrativeModel: text('NARRATIVE_MODEL') ?? DEFAULT_NARRATIVE_MODEL,
    narrativeTimeoutMs: integer('NARRATIVE_TIMEOUT_MS', 30_000, 100, 300_000),
    signalCheckerCmd: argumentVector('SIGNAL_CHECKER_CMD'),
    signalCompilerCmd: argumentVector('SIGNAL_COMPILER_CMD'),
    signalToolTimeoutMs: integer('SIGNAL_TOOL_TIMEOUT_MS', 10_000, 100, 120_000),
    searchMemoryBytes: integer('SEARCH_MEMORY_MB', defaultSearchMemoryMb(memoryLimitBytes), 0, 1_048_576) * 1024 * 1024,
    readerThreads: oneOf('READER_THREADS', ['on', 'off'] as const, cores > 1 ? 'on' : 'off') === 'on',
    searchThread: oneOf('SEARCH_THREAD', ['on', 'off'] as const, cores > 1 ? 'on' : 'off') === 'on',
    tenantHandlesMax: integer('TENANT_HANDLES_MAX', DEFAULT_TENANT_HANDLES_MAX, 1, 65_536),
    responseValidation: oneOf('RESPONSE_VALIDATION', ['on', 'off'] as const, 'on') === 'on',
    corsOrigins: (text('CORS_ORIGINS') ?? '').split(',').map((o) => o.trim()).filter((o) => o !== ''),
    metricsEnabled: oneOf('METRICS', ['on', 'off'] as const, 'on') === 'on',
    auth,
    limits: {
      narrativesPerMinute: integer('NARRATIVE_PER_MINUTE', 10, 0, 1_000_000),
      exportsPerCaller: integer('EXPORTS_PER_CALLER', 2, 0, 10_000),
      signalToolsPerMinute: integer('SIGNAL_TOOLS_PER_MINUTE', 60, 0, 1_000_000),
      tenantFetchesPerMinute: integer('TENANT_FETCHES_PER_MINUTE', 60, 0, 1_000_000),
      exportLeaseMs: integer('EXPORT_LEASE_MS', 30_000, 1000, 600_000),
    },
    trustProxy: trust,
    shutdown: {
      delayMs: integer('SHUTDOWN_DELAY_MS', 0, 0, 600_000),
      timeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    },
    events: {
      keepAliveMs: integer('EVENTS_KEEPALIVE_MS', 15_000, 1000, 30_000),
      retryMs: integer('EVENTS_RETRY_MS', 2000, 100, 600_000),
      resumeEvents: integer('EVENTS_RESUME_EVENTS', 1000, 100, 100_000),
      resumeMs: integer('EVENTS_RESUME_MS', 900_000, 300_000, 86_400_000),
      streamsPerCaller: integer('EVENTS_STREAMS_PER_CALLER', 16, 1, 100_000),
      streamsMax: integer('EVENTS_STREAMS_MAX', 5000, 1, 1_000_000),
    },
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    tracing: tracingConfig(text, problems),
  };
  for (const origin of config.corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) problems.push(`CORS_ORIGINS entries must be origins like https://host:port (got "${maskedUrl(origin)}")`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** Hosts on which the OpenID provider may be reached over plain http (a provider on the same machine). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** True for a listen address or host name that only this machine reaches: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackAddress(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Most proxy hops TRUST_PROXY may name: more than any real chain of proxies. */
export const MAX_PROXY_HOPS = 32;

/**
 * TRUST_PROXY: unset (null: forwarded headers are ignored), a hop count from 1 to MAX_PROXY_HOPS, or
 * comma-separated IP addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal` (proxy-addr's).
 */
function trustProxy(raw: string | null, problems: string[]): TrustProxy | null {
  if (raw === null) return null;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= MAX_PROXY_HOPS) return { kind: 'hops', hops };
    problems.push(`TRUST_PROXY must be a hop count from 1 to ${MAX_PROXY_HOPS} or a list of proxy addresses and CIDR ranges (got "${raw}")`);
    return null;
  }
  const addresses = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of addresses) {
    try {
      proxyaddr.compile(entry);
    } catch {
      problems.push(`TRUST_PROXY entries must be IP addresses, CIDR ranges or loopback, linklocal, uniquelocal (got "${entry}")`);
    }
  }
  return addresses.length === 0 ? null : { kind: 'addresses', addresses };
}

/** Whether TRUST_PROXY believes a peer on this machine (a loopback address) or, as a hop count, any peer at all. */
function trustsLocalPeers(trust: TrustProxy): boolean {
  if (trust.kind === 'hops') return true;
  return trust.addresses.some((entry) => {
    if (entry === 'loopback' || isLoopbackAddress(entry.split('/')[0]!)) return true;
    try {
      const trusted = proxyaddr.compile(entry);
      return trusted('127.0.0.1', 0) || trusted('::1', 0);
    } catch {
      return false; // reported as malformed
    }
  });
}

/** STORE_WARM: comma-separated `<pack>.<slug>` and `<pack>.*`, without duplicates; empty when unset. */
function warmList(raw: string | null, problems: string[]): string[] {
  if (raw === null) return [];
  const entries = [...new Set(raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))];
  if (entries.length > MAX_WARM_ENTRIES) problems.push(`STORE_WARM may name at most ${MAX_WARM_ENTRIES} tenants and packs (got ${entries.length})`);
  for (const entry of entries.slice(0, MAX_WARM_ENTRIES)) {
    const [pack = '', slug = '', ...more] = entry.split('.');
    if (more.length > 0 || !SLUG_PATTERN.test(pack) || (slug !== '*' && !SLUG_PATTERN.test(slug))) problems.push(`STORE_WARM entries must be <pack>.<slug> or <pack>.* (got "${entry.slice(0, 200)}")`);
  }
  return entries;
}

/** A host name, `*.` and a domain, an IPv4 address, a bracketed IPv6 address, or `*`. */
const HOST_PATTERN = /^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/** ALLOWED_HOSTS: comma-separated host patterns without port, lower-cased; null when unset. */
function hostPatterns(raw: string | null, problems: string[]): string[] | null {
  if (raw === null) return null;
  const patterns = raw.split(',').map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '');
  for (const pattern of patterns) {
    if (!HOST_PATTERN.test(pattern)) problems.push(`ALLOWED_HOSTS entries must be host names without port, *.<domain>, IP addresses ([…] for IPv6) or * (got "${pattern}")`);
  }
  return patterns;
}

/**
 * AUTH_MODE and the OIDC_* variables. OIDC_ISSUER must be https (http only on a loopback host, for a provider on
 * the same machine); OIDC_* set while AUTH_MODE is not oidc is refused, so a forgotten AUTH_MODE cannot leave a
 * server that was meant to ask for tokens open to everyone.
 */
function authConfig(
  env: Env,
  text: (name: string) => string | null,
  integer: (name: string, fallback: number, min: number, max: number) => number,
  oneOf: <T extends string>(name: string, allowed: readonly T[], fallback: T) => T,
  problems: string[],
): AuthConfig {
  const mode = oneOf('AUTH_MODE', ['none', 'oidc'] as const, 'none');
  const oidcNames = Object.keys(env).filter((name) => name.startsWith('OIDC_') && text(name) !== null);
  if (mode === 'none') {
    if (oidcNames.length > 0 && text('AUTH_MODE') === null) problems.push(`${oidcNames.sort().join(', ')} set but AUTH_MODE is not; set AUTH_MODE=oidc to require tokens`);
    else if (oidcNames.length > 0) problems.push(`${oidcNames.sort().join(', ')} set but AUTH_MODE=none; remove them or set AUTH_MODE=oidc`);
    return { mode: 'none' };
  }
  const issuer = text('OIDC_ISSUER');
  if (issuer === null) problems.push('OIDC_ISSUER is required when AUTH_MODE=oidc');
  else {
    let parsed: URL | null = null;
    try {
      parsed = new URL(issuer);
    } catch {
      parsed = null;
    }
    const secure = parsed !== null && (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)));
    if (parsed === null || !secure || parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
      problems.push(`OIDC_ISSUER must be an https URL without query or fragment (http only on a loopback host) (got "${maskedUrl(issuer)}")`);
    }
  }
  const audience = text('OIDC_AUDIENCE');
  if (audience === null) problems.push('OIDC_AUDIENCE is required when AUTH_MODE=oidc');
  const claimName = (name: string, fallback: string): string => {
    const value = text(name) ?? fallback;
    if (!/^[\x21-\x7e]{1,200}$/.test(value)) problems.push(`${name} must be a claim name of printable ASCII characters (got "${value}")`);
    return value;
  };
  return {
    mode: 'oidc',
    issuer: issuer ?? '',
    audience: audience ?? '',
    clockToleranceS: integer('OIDC_CLOCK_TOLERANCE_S', 30, 0, 600),
    tenantsClaim: claimName('OIDC_TENANTS_CLAIM', 'tenants'),
    rolesClaim: claimName('OIDC_ROLES_CLAIM', 'roles'),
  };
}

/** Secrets shorter than this are not masked where they stand alone in a text: `1` would mask every digit. */
const MIN_MASKED_SECRET = 4;

/**
 * The configuration's secrets as they may stand alone in a driver's or SDK's message (a password, a key file's path
 * given as `sslkey`, a token): the log masks each wherever it appears (docs/configuration.md#secrets).
 */
export function configSecrets(config: Config): string[] {
  const secrets = [
    ...(config.appDb.kind === 'postgres' ? urlSecrets(config.appDb.url) : []),
    config.s3.secretKey,
    config.githubToken,
    config.anthropicApiKey,
  ];
  return secrets.filter((secret): secret is string => secret !== null && secret.length >= MIN_MASKED_SECRET);
}

const SSL_MODES = new Set(['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']);

/**
 * One app database URL read as APP_DB_URL is (relative SQLite paths against `cwd`), for programs that name app
 * databases on their command line (`ads-appdb copy --from … --to …`): its configuration with the default pool and
 * lock wait, or a ConfigError whose problems name the URL `name` (the password masked).
 */
export function parseAppDbUrl(name: string, raw: string, cwd: string = process.cwd()): AppDbConfig {
  const problems: string[] = [];
  const trimmed = raw.trim();
  const config = appDbConfig(trimmed === '' ? null : trimmed, '', (value) => path.resolve(cwd, value), problems, APP_DB_DEFAULT_SIZES, name);
  if (trimmed === '') problems.push(`${name} must be sqlite:<path> or postgres://user:password@host:port/database (got "")`);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * APP_DB_URL: `sqlite:<path>` (default `$DATA_DIR/app.sqlite`) or `postgres://` / `postgresql://user:password@host:port/db`
 * with optional parameters (`sslmode` one of disable, prefer, require, verify-ca, verify-full, no-verify).
 * A password never appears in a configuration error.
 */
function appDbConfig(
  raw: string | null,
  defaultFile: string,
  dir: (value: string) => string,
  problems: string[],
  sizes: Omit<AppDbConfig, 'kind' | 'path' | 'url'>,
  name = 'APP_DB_URL',
): AppDbConfig {
  if (raw === null) return { kind: 'sqlite', path: defaultFile, ...sizes };
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return { kind: 'sqlite', path: dir(raw.slice('sqlite:'.length)), ...sizes };
  const url = readableUrl(raw);
  if (url === null || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '' || url.pathname.length <= 1) {
    // a password holding a reserved character unencoded (`/`, `?`, `#`, `@`) makes the URL unreadable: it is not echoed
    // (a path without `sqlite:` is no URL either, but percent-encoding is no help there)
    const hint = url === null && /^postgres(ql)?:/i.test(raw) ? '; percent-encode reserved characters in the user name and password (/ as %2F)' : '';
    problems.push(`${name} must be sqlite:<path> or postgres://user:password@host:port/database (got "${maskedUrl(raw)}"${hint})`);
    return { kind: 'sqlite', path: defaultFile, ...sizes };
  }
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.has(sslmode)) problems.push(`${name} sslmode must be one of ${[...SSL_MODES].join(', ')} (got "${sslmode}")`);
  return { kind: 'postgres', url: raw, ...sizes };
}
