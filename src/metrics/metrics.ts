/** A counter domain code moves: a Prometheus counter, or one that records nothing (METRICS=off). */
export interface Count {
  inc(amount?: number): void;
}

/** A counter with one label whose values come from a fixed set (bounded series). */
export interface LabelledCount<L extends string, V extends string> {
  inc(labels: Readonly<Record<L, V>>, amount?: number): void;
}

/** Outcomes of one language-model call for a narrative. */
export type NarrativeOutcome = 'ok' | 'api_error' | 'timeout' | 'unreachable' | 'no_text' | 'failed';
export const NARRATIVE_OUTCOMES: readonly NarrativeOutcome[] = ['ok', 'api_error', 'timeout', 'unreachable', 'no_text', 'failed'];

/** Kinds of app-database errors: a lock not granted in time, a database that does not answer, anything else. */
export type AppDbErrorKind = 'busy' | 'unreachable' | 'other';
export const APP_DB_ERROR_KINDS: readonly AppDbErrorKind[] = ['busy', 'unreachable', 'other'];

/** Files a tenant keeps open: its KLS file and its search index (each bounded by TENANT_HANDLES_MAX). */
export type TenantFileKind = 'kls' | 'search_index';
export const TENANT_FILE_KINDS: readonly TenantFileKind[] = ['kls', 'search_index'];

/** What the bounded store cache records (store mode with STORE_CACHE_MAX_MB). */
export interface StoreCacheMetrics {
  /** Leases of a tenant whose file was in the cache. */
  readonly hits: Count;
  /** Leases that had to wait for their tenant's fetch (started or joined). */
  readonly misses: Count;
  /** Tenants deleted from the cache to make room. */
  readonly evictions: Count;
  /** Bytes of tenant files fetched into the cache on demand or to keep them warm. */
  readonly fetchedBytes: Count;
  /** One fetch that put a tenant's file in service: its time from start (download, check, open) in seconds. */
  observeFetch(seconds: number): void;
  /** Reads the cache's bytes and bound when metrics are scraped. */
  watch(read: () => { usedBytes: number; reservedBytes: number; maxBytes: number }): void;
}

/** The `operation` label of requests that match no operation of the contract (unknown path, other method, preflight). */
export const UNMATCHED_OPERATION = 'unmatched';

/** The metrics port: what the server records, and the exposition `GET /metrics` serves. One registry per server. */
export interface Metrics {
  /** False with METRICS=off: nothing is recorded and `GET /metrics` answers 404. */
  readonly enabled: boolean;
  /** One answered request: its operationId (or UNMATCHED_OPERATION), method, status and duration. */
  observeRequest(operation: string, method: string, status: number, seconds: number): void;
  readonly searchCacheHits: Count;
  readonly searchCacheMisses: Count;
  /** Bytes received from the object store (store mode), counted as they arrive. */
  readonly storeDownloadedBytes: Count;
  /** The bounded store cache: hits, misses, evictions, fetched bytes and fetch time, and its bytes. */
  readonly storeCache: StoreCacheMetrics;
  /** CSV data rows written by dimension exports. */
  readonly exportedRows: Count;
  readonly narrativeCalls: LabelledCount<'outcome', NarrativeOutcome>;
  /** Moved by the app-database code for each failed database operation. */
  readonly appDbErrors: LabelledCount<'kind', AppDbErrorKind>;
  /** Idle tenant connections and search indexes closed to stay within TENANT_HANDLES_MAX. */
  readonly tenantFilesClosed: LabelledCount<'kind', TenantFileKind>;
  /** Reads the open tenant files when metrics are scraped. */
  watchOpenTenantFiles(read: () => Readonly<Record<TenantFileKind, number>>): void;
  /** Every metric in the Prometheus text format 0.0.4. */
  exposition(): Promise<string>;
}

/** A counter that records nothing (METRICS=off, and code built without a metrics port). */
export const UNCOUNTED: Count & LabelledCount<string, string> = { inc() {} };

/** Store-cache metrics that record nothing. */
export const UNCOUNTED_STORE_CACHE: StoreCacheMetrics = {
  hits: UNCOUNTED,
  misses: UNCOUNTED,
  evictions: UNCOUNTED,
  fetchedBytes: UNCOUNTED,
  observeFetch() {},
  watch() {},
};

/** The metrics of a server with METRICS=off. */
export const DISABLED_METRICS: Metrics = {
  enabled: false,
  observeRequest() {},
  searchCacheHits: UNCOUNTED,
  searchCacheMisses: UNCOUNTED,
  storeDownloadedBytes: UNCOUNTED,
  storeCache: UNCOUNTED_STORE_CACHE,
  exportedRows: UNCOUNTED,
  narrativeCalls: UNCOUNTED,
  appDbErrors: UNCOUNTED,
  tenantFilesClosed: UNCOUNTED,
  watchOpenTenantFiles() {},
  exposition: async () => '',
};
