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

/** The metrics of a server with METRICS=off. */
export const DISABLED_METRICS: Metrics = {
  enabled: false,
  observeRequest() {},
  searchCacheHits: UNCOUNTED,
  searchCacheMisses: UNCOUNTED,
  storeDownloadedBytes: UNCOUNTED,
  exportedRows: UNCOUNTED,
  narrativeCalls: UNCOUNTED,
  appDbErrors: UNCOUNTED,
  tenantFilesClosed: UNCOUNTED,
  watchOpenTenantFiles() {},
  exposition: async () => '',
};
