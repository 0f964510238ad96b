import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAppDatabase } from './appdb/app-database.js';
import { UnitOfWork } from './appdb/unit-of-work.js';
import { createCostLimiter } from './auth/create-cost-limiter.js';
import { createOidcVerifier, IssuerUnusable, type OidcTiming, type TokenVerifier } from './auth/oidc.js';
import { readBuildLabel } from './build-label.js';
import { ConfigError, type Config } from './config.js';
import { searchHitCheck } from './search/search-hit.js';
import { loadContractDocument } from './contract-document.js';
import { ContractSchemas } from './contract-schemas.js';
import { readGitIdentity } from './identity/git-identity.js';
import { CellRules } from './collaboration/cell-rules.js';
import { DocumentWrites } from './collaboration/documents.js';
import { AppDbNotebooks } from './notebooks/notebook.js';
import { AppDbNotes } from './notes/notes.js';
import { AppDbSavedViews } from './views/saved-views.js';
import type { Logger } from './logger.js';
import { createMetrics } from './metrics/create-metrics.js';
import type { AppDbErrorKind, Metrics } from './metrics/metrics.js';
import { projectRoot } from './project-root.js';
import { createReaders } from './reader-jobs/readers.js';
import type { Readers } from './reader-threads/protocol.js';
import { TenantRegistry } from './tenants/registry.js';
import type { Deps } from './ports/deps.js';
// The SDKs (@octokit/rest, @anthropic-ai/sdk, minio) and the modules importing them are loaded with import()
// on first use only (about 35 MB of an idle server's RSS otherwise); `import type` costs nothing at run time.
import type { CodeHost } from './drift/code-host.js';
import { DriftCache } from './drift/drift-cache.js';
import { DriftChecks } from './drift/drift-checks.js';
import { Drain } from './health/drain.js';
import { HealthChecks } from './health/health-checks.js';
import { TenantExplanations } from './lineage/explanations.js';
import type { LanguageModel } from './narrative/language-model.js';
import { Narratives } from './narrative/narratives.js';
// Store mode's own modules load at start (they import the minio SDK as a type only): a problem they throw must be
// the Problem class of the modules that answer it, not a second copy loaded with import().
import { KlsStore } from './store/kls-store.js';
import { MinioObjectStore, type FileSink } from './store/object-store.js';
import { StoreTransport } from './store/store-transport.js';
import { RefreshChannel } from './store/refresh-channel.js';
import { ChangeFeed, localTransport } from './events/change-feed.js';
import { postgresTransport } from './events/event-channel.js';
import { AfsDefinitions } from './signals/afs-store.js';
import { bundledCommand, SignalTools, TOOL_LIMITS } from './signals/signal-tools.js';
import { RESULT_CACHE_ENTRIES, SearchResultCache } from './search/result-cache.js';
import { SearchThread } from './search/search-thread.js';
import { SearchIndexes } from './search/search-indexes.js';
import { prebuildSearchIndex } from './search/tenant-search.js';
import { JumpbarReads } from './search/jumpbar.js';
import { AfsSignalBuilder } from './signals/signal-builder.js';
import { StoreSource } from './store/tenant-source.js';
import { TaxonomyReads } from './taxonomies/taxonomy-reads.js';
import { TenantContentReads } from './content/tenant-content.js';
import { DimensionCsvExports } from './dimensions/export.js';
import { SwaggerUi } from './docs/swagger-ui.js';
import type { AppDatabase } from './appdb/app-database.js';

/** Deps plus the parts behind them that the server and its tests reach, and the means to release them on shutdown. */
export interface OwnedDeps extends Deps {
  /** The registry of every tenant (scans, swaps, shutdown). */
  readonly tenants: TenantRegistry;
  /** The contract's component schemas, for checks of values outside request validation. */
  readonly schemas: ContractSchemas;
  /** Set when the server begins to stop: readiness answers 503 from then on. */
  readonly drain: Drain;
  readonly appDb: AppDatabase;
  /** KLS store mode: the object-store sync; null in local mode. */
  readonly store: KlsStore | null;
  /** One sidecar search index per tenant generation, beside the KLS file. */
  readonly searchIndexes: SearchIndexes;
  /** Where exports and explains read tenant files: reader threads, or the main thread in bounded steps (READER_THREADS). */
  readonly readers: Readers & { close(): Promise<void> };
  /** The tenants' change events and their streams (ended as the server stops accepting connections). */
  readonly events: ChangeFeed;
  close(): Promise<void>;
}

/** How often local mode looks for added, replaced or removed tenant files. */
const LOCAL_SCAN_INTERVAL_MS = 5000;

/** What a caller of createDeps may set in place of the real thing (tests: a clock they move themselves). */
export interface DepsOptions {
  /** The OpenID provider's key-fetch cooldown and start deadline, and its clock. */
  oidcTiming?: OidcTiming | undefined;
  /** The clock of `Deps.now`; the system clock by default. */
  now?: (() => number) | undefined;
  /** The signal checker, compiler and definition parser, in place of the configured ones (closed with the server). */
  signalTools?: SignalTools | undefined;
  /** Where long reads run, in place of those READER_THREADS asks for (closed with the server). */
  readers?: (Readers & { close(): Promise<void> }) | undefined;
  /** Where store-mode downloads write their bytes; files opened for writing by default (tests: a disk that fills). */
  storeFileSink?: FileSink | undefined;
}

/** Builds every dependency from the configuration: tenant registry, app database, contract, identity. */
export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<OwnedDeps> {
  const now = options.now ?? Date.now;
  const root = projectRoot();
  // First, so that an unusable identity provider stops the start before anything is opened.
  const tokens = config.auth.mode === 'oidc' ? await openOidc(config.auth, log, options.oidcTiming) : null;
  const contract = loadContractDocument(root);
  const schemas = new ContractSchemas(contract.document);
  const metrics = await createMetrics(config.metricsEnabled);
  const tenants = new TenantRegistry(config.klsDir, config.klsMode, log, config.tenantHandlesMax, {
    inc: (amount) => metrics.tenantFilesClosed.inc({ kind: 'kls' }, amount),
  });
  const searchIndexes = new SearchIndexes(
    log.child({ component: 'search' }),
    searchHitCheck(contract.jsonEtag, () => schemas.componentValidator('SearchItem')),
    config.searchMemoryBytes,
    new SearchResultCache(RESULT_CACHE_ENTRIES, { hits: metrics.searchCacheHits, misses: metrics.searchCacheMisses }),
    config.tenantHandlesMax,
    { inc: (amount) => metrics.tenantFilesClosed.inc({ kind: 'search_index' }, amount) },
    config.searchThread ? new SearchThread() : null,
  );
  metrics.watchOpenTenantFiles(() => ({ kls: tenants.openHandles, search_index: searchIndexes.openIndexes }));
  const store = config.klsMode === 'store' ? await createKlsStore(config, tenants, log, metrics, options.storeFileSink) : null;
  // Every file put in service gets its search index built in the background, before its first search; with a bounded
  // cache only a tenant in steady use (read again, or warmed), so that a scan of tenants read once builds no index
  const cache = store?.cache ?? null;
  tenants.onInstalled((entry) => {
    if (cache === null || cache.wantsIndexAhead(entry.compositeId)) prebuildSearchIndex(tenants, searchIndexes, entry.compositeId);
  });
  cache?.onPromoted((compositeId) => prebuildSearchIndex(tenants, searchIndexes, compositeId));
  // an evicted or removed tenant's search index closes: its connection, and its names leave SEARCH_MEMORY_MB
  tenants.onUnloaded((entry) => searchIndexes.forget(entry.compositeId));
  // the bounded cache counts the search indexes beside the tenant files
  if (cache !== null) searchIndexes.buildIn(cache);
  // Store mode: cached files are served at once; the first sync with the store runs in the background.
  if (store !== null) void store.start();
  else tenants.scanLocal();
  const scanTimer = store === null ? setInterval(() => tenants.scanLocal(), LOCAL_SCAN_INTERVAL_MS) : undefined;
  scanTimer?.unref();

  // Several instances share one PostgreSQL app database: a refresh received by one is carried out by all.
  const refreshChannel =
    store !== null && config.appDb.kind === 'postgres'
      ? await RefreshChannel.open(
          config.appDb.url,
          store.instance,
          { refresh: (scope) => store.refreshAnnounced(scope), caughtUp: () => store.refreshAnnounced({ kind: 'all' }) },
          log.child({ component: 'store-refresh' }),
        )
      : null;
  if (refreshChannel !== null) store?.shareRefreshes(refreshChannel);

  const appDbFailure = (kind: AppDbErrorKind): void => metrics.appDbErrors.inc({ kind });
  const appDb = await openAppDatabase(config.appDb, log.child({ component: 'app-db' }), appDbFailure);
  // one unit of work and one set of cell rules for every service on the app database
  const units = new UnitOfWork(appDb, { transactionTimeoutMs: config.appDb.transactionTimeoutMs, onFailure: appDbFailure });
  const cellRules = new CellRules(schemas);
  const documents = new DocumentWrites(units, now);
  const limits = await createCostLimiter(config, log);
  const home = os.homedir();
  const signalTools =
    options.signalTools ??
    new SignalTools(
      config.signalCheckerCmd === null ? bundledCommand('checker') : { argv: config.signalCheckerCmd, bundled: false },
      config.signalCompilerCmd === null ? bundledCommand('compiler') : { argv: config.signalCompilerCmd, bundled: false },
      root,
      { ...TOOL_LIMITS, timeoutMs: config.signalToolTimeoutMs },
    );
  const signalDefinitions = new AfsDefinitions(config.afsDir, signalTools.definitions);
  const { drift, languageModel } = createOutboundPorts(config, log, tenants);
  const readers = options.readers ?? createReaders(config.readerThreads);
  const drain = new Drain();
  // With a PostgreSQL app database every instance hears every instance's events, in one order.
  const eventsUrl = config.appDb.kind === 'postgres' ? config.appDb.url : null;
  const events = new ChangeFeed(config.events, Date.now, (receiver) =>
    eventsUrl === null ? localTransport(receiver, Date.now) : postgresTransport(eventsUrl, receiver, log.child({ component: 'change-events' })),
  );
  return {
    config,
    log,
    buildLabel: readBuildLabel(root),
    contract,
    schemas,
    tenants,
    health: new HealthChecks({ config, buildLabel: readBuildLabel(root), appDb, tenants, store, drain }),
    tenantSource: new StoreSource(store, config.klsMode),
    store,
    appDb,
    notebooks: new AppDbNotebooks(documents, cellRules),
    notes: new AppDbNotes(documents, cellRules),
    views: new AppDbSavedViews(documents),
    identity: (tenant) =>
      readGitIdentity(config.gitWorkspacesDir, tenant === null ? [] : [tenant.compositeId, tenant.slug], fs.existsSync(home) ? home : path.parse(root).root),
    drift,
    narratives: languageModel === null ? null : new Narratives(languageModel, signalDefinitions, metrics.narrativeCalls),
    signals: new AfsSignalBuilder(tenants, signalDefinitions, signalTools),
    readers,
    explanations: new TenantExplanations(tenants, readers, signalDefinitions),
    content: new TenantContentReads(tenants, config.logoDir),
    jumpbar: new JumpbarReads(tenants, searchIndexes),
    taxonomies: new TaxonomyReads(tenants),
    exports: new DimensionCsvExports(tenants, readers, metrics.exportedRows),
    docs: new SwaggerUi(),
    searchIndexes,
    tokens,
    limits,
    drain,
    metrics,
    events,
    async close() {
      await events.close();
      clearInterval(scanTimer);
      searchIndexes.close();
      signalTools.close();
      await refreshChannel?.close();
      await store?.close();
      tenants.close();
      await limits.close();
      await readers.close();
      await appDb.close();
    },
  };
}

/** The token verifier; a provider that cannot be used stops the start with a one-line configuration error. */
async function openOidc(auth: Extract<Config['auth'], { mode: 'oidc' }>, log: Logger, timing?: OidcTiming): Promise<TokenVerifier> {
  try {
    return await createOidcVerifier(auth, log.child({ component: 'oidc' }), timing);
  } catch (err) {
    if (err instanceof IssuerUnusable) throw new ConfigError([`OIDC_ISSUER: ${err.message}`]);
    throw err;
  }
}

/** Memoises an asynchronous load; a failed load is tried again on the next call. */
function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | null = null;
  return () => {
    loaded ??= load().catch((err: unknown) => {
      loaded = null;
      throw err;
    });
    return loaded;
  };
}

/**
 * Drift and narrative ports: the one place an Octokit and an Anthropic client are built.
 * Each SDK is imported and its client built on the first call, so a server that never calls them never loads them.
 */
function createOutboundPorts(config: Config, log: Logger, tenants: TenantRegistry): { drift: Deps['drift']; languageModel: LanguageModel | null } {
  const sdkLog = log.child({ component: 'sdk' });
  const gitHub = loadOnce(async (): Promise<CodeHost> => {
    const [{ Octokit }, { gitHubCodeHost }] = await Promise.all([import('@octokit/rest'), import('./drift/github-code-host.js')]);
    const octokit = new Octokit({
      baseUrl: config.githubApiUrl,
      ...(config.githubToken === null ? {} : { auth: config.githubToken }),
      log: { debug: () => {}, info: () => {}, warn: (m: string) => sdkLog.warn(m), error: (m: string) => sdkLog.error(m) },
    });
    return gitHubCodeHost(octokit, config.driftTimeoutMs);
  });
  const anthropicApiKey = config.anthropicApiKey;
  const anthropic =
    anthropicApiKey === null
      ? null
      : loadOnce(async (): Promise<LanguageModel> => {
          const [{ Anthropic }, { anthropicLanguageModel }] = await Promise.all([import('@anthropic-ai/sdk'), import('./narrative/anthropic-language-model.js')]);
          const client = new Anthropic({
            apiKey: anthropicApiKey,
            // explicit, so the SDK never falls back to reading ANTHROPIC_BASE_URL from the environment itself
            baseURL: config.anthropicBaseUrl ?? 'https://api.anthropic.com',
            timeout: config.narrativeTimeoutMs,
            maxRetries: 0,
            logger: sdkLog,
            logLevel: 'warn',
            // Spans of the calls, without prompts or answers; undici's instrumentation sends the trace context.
            openTelemetry: config.tracing === null ? false : { propagation: false, traces: { enabled: true, contentMode: 'metadata_only' } },
          });
          return anthropicLanguageModel(client, config.narrativeModel, config.narrativeTimeoutMs);
        });
  return {
    drift: new DriftChecks(
      tenants,
      {
        async compare(repo, base, head) {
          let host: CodeHost;
          try {
            host = await gitHub();
          } catch {
            return { ok: false, failure: 'fetch_error', message: 'The code-hosting client could not be loaded.' };
          }
          return host.compare(repo, base, head);
        },
      },
      new DriftCache(),
    ),
    languageModel:
      anthropic === null
        ? null
        : {
            async write(prompt) {
              let model: LanguageModel;
              try {
                model = await anthropic();
              } catch {
                return { ok: false, failure: 'failed', message: 'The language-model client could not be loaded.' };
              }
              return model.write(prompt);
            },
          },
  };
}

/** KLS store mode over the configured S3-compatible server (the one place a Minio.Client is built). */
async function createKlsStore(config: Config, tenants: TenantRegistry, log: Logger, metrics: Metrics, sink: FileSink | undefined): Promise<KlsStore> {
  const Minio = await import('minio');
  const endpoint = new URL(config.s3.endpoint as string);
  const useSSL = endpoint.protocol === 'https:';
  const transport = StoreTransport.forScheme(useSSL, config.storeDeadlines);
  const client = new Minio.Client({
    endPoint: endpoint.hostname.replace(/^\[|\]$/g, ''),
    port: endpoint.port === '' ? (useSSL ? 443 : 80) : Number(endpoint.port),
    useSSL,
    accessKey: config.s3.accessKey ?? '',
    secretKey: config.s3.secretKey ?? '',
    region: config.s3.region,
    pathStyle: true,
    // the SDK's own retry writes unstructured lines to standard error; a failed download or listing is reported
    // and tried again by the server (the next request, refresh or poll)
    retryOptions: { disableRetry: true },
    // every request within STORE_CONNECT_TIMEOUT_MS, STORE_FIRST_BYTE_TIMEOUT_MS and STORE_IDLE_TIMEOUT_MS; cut at shutdown
    transport,
  });
  const objects = new MinioObjectStore(client, config.s3.bucket as string, sink, transport);
  return new KlsStore(
    tenants,
    objects,
    {
      prefix: config.s3.prefix,
      concurrency: config.storeConcurrency,
      cache: config.storeCache,
      downloadedBytes: metrics.storeDownloadedBytes,
      cacheMetrics: metrics.storeCache,
    },
    log,
  );
}
