import type { AppDatabase } from './appdb/app-database.js';
import type { CostLimiter } from './auth/cost-limits.js';
import type { TokenVerifier } from './auth/oidc.js';
import type { BuildLabel } from './build-label.js';
import type { Config } from './config.js';
import type { ContractDocument } from './contract-document.js';
import type { CodeHost } from './drift/code-host.js';
import type { DriftCache } from './drift/drift-cache.js';
import type { Drain } from './health/drain.js';
import type { GitIdentity } from './identity/git-identity.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { Readers } from './reader-threads/protocol.js';
import type { LanguageModel } from './narrative/language-model.js';
import type { SearchIndexes } from './search/search-indexes.js';
import type { SignalTools } from './signals/signal-tools.js';
import type { KlsStore } from './store/kls-store.js';
import type { TenantEntry, Tenants } from './tenants/tenants.js';

/** The narrow ports handlers and domain code use; built once by createDeps, replaced wholesale in tests. */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly buildLabel: BuildLabel;
  readonly contract: ContractDocument;
  /** The tenants a request may use: the registry itself, or (with sign-in) the caller's scope of it. */
  readonly tenants: Tenants;
  /** KLS store mode: the object-store sync (status, refresh); null in local mode. */
  readonly store: KlsStore | null;
  readonly appDb: AppDatabase;
  /** Git identity, from the tenant's work tree when one exists, else the global git configuration. */
  readonly identity: (tenant: TenantEntry | null) => Promise<GitIdentity>;
  /** Code-hosting API (GitHub REST via Octokit) for drift; SDK errors translated into drift statuses. */
  readonly codeHost: CodeHost;
  /** Drift reports cached per tenant and file generation. */
  readonly driftCache: DriftCache;
  /** Language-model API (Anthropic Messages) for narratives; null when ANTHROPIC_API_KEY is unset. */
  readonly languageModel: LanguageModel | null;
  /** Signal contract checker and compiler, run as child processes (docs/signal-language.md). */
  readonly signalTools: SignalTools;
  /** Where exports and explains read tenant files: reader threads, or the main thread in bounded steps (READER_THREADS). */
  readonly readers: Readers;
  /** Jumpbar search: one sidecar index per tenant generation, beside the KLS file. */
  readonly searchIndexes: SearchIndexes;
  /** Bearer-token verification against the OpenID provider (AUTH_MODE=oidc); null without sign-in. */
  readonly tokens: TokenVerifier | null;
  /** Limits on costly work per caller (narratives, exports, signal tools); shared by the instances on a PostgreSQL app database. */
  readonly limits: CostLimiter;
  /** Set when the server begins to stop: readiness answers 503 from then on. */
  readonly drain: Drain;
  /** Prometheus metrics of this server (its own registry); records nothing with METRICS=off. */
  readonly metrics: Metrics;
}
