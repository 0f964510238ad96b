import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { APP_DB_ERROR_KINDS, NARRATIVE_OUTCOMES, TENANT_FILE_KINDS, type Metrics, type StoreCacheMetrics, type TenantFileKind } from './metrics.js';

/** Upper bounds of the fetch-time buckets, in seconds: a small tenant on a local network in milliseconds, 1 GB in tens of seconds. */
const FETCH_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250];

/** Upper bounds of the request-duration buckets, in seconds: a cached search takes ~1 ms, an export seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Observe = (seconds: number) => void;

/** Metrics over a prom-client Registry of their own, so that servers sharing a process (tests) share no series. */
export function prometheusMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request until its response is ready to be written (a streamed body is not waited for), by operationId ("unmatched": no operation), method and status.',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const narrativeCalls = new Counter({
    name: 'narrative_calls_total',
    help: 'Calls of the language model for narratives, by outcome: ok, api_error, timeout, unreachable, no_text, failed.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of NARRATIVE_OUTCOMES) narrativeCalls.inc({ outcome }, 0);
  const appDbErrors = new Counter({
    name: 'app_db_errors_total',
    help: 'Failed units of work of the app database (views, notebooks, notes), by kind: busy (a lock not granted in time) and unreachable (the database does not answer), both answered 503, or other (answered 500).',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of APP_DB_ERROR_KINDS) appDbErrors.inc({ kind }, 0);
  const tenantFilesClosed = new Counter({
    name: 'tenant_files_closed_total',
    help: 'Idle tenant files closed to stay within TENANT_HANDLES_MAX, by kind: kls (a KLS connection) or search_index; the next request opens them again.',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of TENANT_FILE_KINDS) tenantFilesClosed.inc({ kind }, 0);
  let readOpenFiles: (() => Readonly<Record<TenantFileKind, number>>) | null = null;
  new Gauge({
    name: 'tenant_files_open',
    help: 'Tenant files open now, by kind: kls (KLS connections, leased, idle or draining after a swap) and search_index (search indexes in service).',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const open = readOpenFiles?.();
      for (const kind of TENANT_FILE_KINDS) this.set({ kind }, open?.[kind] ?? 0);
    },
  });

  // One bound observe function per label combination, so that a request allocates no label object.
  const observers = new Map<string, Map<string, Map<number, Observe>>>();
  return {
    enabled: true,
    observeRequest(operation, method, status, seconds) {
      let byMethod = observers.get(operation);
      if (byMethod === undefined) observers.set(operation, (byMethod = new Map()));
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
      let observe = byStatus.get(status);
      if (observe === undefined) byStatus.set(status, (observe = duration.labels(operation, method, String(status)).observe));
      observe(seconds);
    },
    searchCacheHits: new Counter({ name: 'search_result_cache_hits_total', help: 'Jumpbar searches answered from the result cache.', registers }),
    searchCacheMisses: new Counter({ name: 'search_result_cache_misses_total', help: 'Jumpbar searches that ran on the index (not in the result cache).', registers }),
    storeDownloadedBytes: new Counter({
      name: 'object_store_downloaded_bytes_total',
      help: 'Bytes of tenant files received from the object store (store mode), failed downloads included.',
      registers,
    }),
    exportedRows: new Counter({
      name: 'dimension_export_rows_total',
      help: 'CSV data rows (header rows not counted) written by dimension exports; an export broken off counts the rows encoded until then.',
      registers,
    }),
    storeCache: storeCacheMetrics(registers),
    narrativeCalls,
    appDbErrors,
    tenantFilesClosed,
    watchOpenTenantFiles(read) {
      readOpenFiles = read;
    },
    exposition: () => registry.metrics(),
  };
}

/** The bounded store cache's series: counters of hits, misses, evictions and fetched bytes, fetch times, its bytes. */
function storeCacheMetrics(registers: Registry[]): StoreCacheMetrics {
  const fetchTime = new Histogram({
    name: 'store_cache_fetch_duration_seconds',
    help: 'Time of each fetch that put a tenant file in the bounded store cache (STORE_CACHE_MAX_MB): download, check and open.',
    buckets: FETCH_BUCKETS,
    registers,
  });
  let read: (() => { usedBytes: number; reservedBytes: number; maxBytes: number }) | null = null;
  new Gauge({
    name: 'store_cache_bytes',
    help: 'Bytes of the bounded store cache, by kind: used (tenant files and search indexes), reserved (downloads and index builds under way), max (STORE_CACHE_MAX_MB).',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const bytes = read?.();
      this.set({ kind: 'used' }, bytes?.usedBytes ?? 0);
      this.set({ kind: 'reserved' }, bytes?.reservedBytes ?? 0);
      this.set({ kind: 'max' }, bytes?.maxBytes ?? 0);
    },
  });
  return {
    hits: new Counter({ name: 'store_cache_hits_total', help: 'Tenant reads whose file was in the bounded store cache.', registers }),
    misses: new Counter({ name: 'store_cache_misses_total', help: 'Tenant reads that waited for their file to be fetched into the bounded store cache (started or joined a fetch).', registers }),
    evictions: new Counter({ name: 'store_cache_evictions_total', help: 'Idle tenants whose files were deleted from the bounded store cache to make room, least recently used first.', registers }),
    fetchedBytes: new Counter({ name: 'store_cache_fetched_bytes_total', help: 'Bytes of tenant files fetched into the bounded store cache, on demand or to keep them warm.', registers }),
    observeFetch: (seconds) => fetchTime.observe(seconds),
    watch(reader) {
      read = reader;
    },
  };
}
