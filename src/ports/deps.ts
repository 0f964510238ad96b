import type { CostLimiter } from '../auth/cost-limits.js';
import type { TokenVerifier } from '../auth/oidc.js';
import type { BuildLabel } from '../build-label.js';
import type { Config } from '../config.js';
import type { ContractDocument } from '../contract-document.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';
import type { Notebooks, Notes, SavedViews } from './collaboration.js';
import type { Explanations } from './lineage.js';
import type { Drift, NarrativeWriter } from './outbound.js';
import type { ApiDocs, Health, TenantSource } from './server-state.js';
import type { ChangeEvents } from './events.js';
import type { SignalBuilder } from './signals.js';
import type { DimensionExports, Jumpbar, Taxonomies, TenantContent } from './tenant-reads.js';

/** Who writes, as a desk without sign-in knows it (its git configuration), or as the token names them. */
export interface Identity {
  name: string | null;
  email: string | null;
}

/**
 * What handlers reach the server's parts through: one port per area, built once by createDeps and replaced
 * wholesale in tests. For one request, `tenants` is the caller's view and `identity` the caller's; the ports that
 * read a tenant's file take a tenant resolved through that view.
 */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly buildLabel: BuildLabel;
  readonly contract: ContractDocument;
  /** The tenants a request may use: the registry itself, or (with sign-in) the caller's scope of it. */
  readonly tenants: Tenants;
  /** Health and readiness of this instance. */
  readonly health: Health;
  /** Where the tenant files come from: the object store's status and refreshes (store mode). */
  readonly tenantSource: TenantSource;
  /** The tenants' notebooks (on the app database). */
  readonly notebooks: Notebooks;
  /** The tenants' notes (on the app database). */
  readonly notes: Notes;
  /** The tenants' saved views (on the app database). */
  readonly views: SavedViews;
  /** Git identity, from the tenant's work tree when one exists, else the global git configuration. */
  readonly identity: (tenant: TenantEntry | null) => Promise<Identity>;
  /** Drift reports: the code-hosting API (GitHub REST via Octokit; SDK errors become drift statuses), cached per tenant and file generation. */
  readonly drift: Drift;
  /** Narratives of findings, written through the language-model API (Anthropic Messages); null when ANTHROPIC_API_KEY is unset. */
  readonly narratives: NarrativeWriter | null;
  /** The signal builder: the AFS folder's definitions, the signal contract checker and compiler (docs/signal-language.md). */
  readonly signals: SignalBuilder;
  /** Explanations of entities and findings (their counts on the readers of long reads). */
  readonly explanations: Explanations;
  /** Logos, pipeline artifacts and reports of the tenants. */
  readonly content: TenantContent;
  /** The jumpbar: tenant list, finding summary, search (one sidecar index per tenant generation). */
  readonly jumpbar: Jumpbar;
  /** Taxonomy members and cardinalities. */
  readonly taxonomies: Taxonomies;
  /** CSV exports of dimension tables (on the readers of long reads). */
  readonly exports: DimensionExports;
  /** Swagger UI at /docs. */
  readonly docs: ApiDocs;
  /** Bearer-token verification against the OpenID provider (AUTH_MODE=oidc); null without sign-in. */
  readonly tokens: TokenVerifier | null;
  /** Limits on costly work per caller (narratives, exports, signal tools); shared by the instances on a PostgreSQL app database. */
  readonly limits: CostLimiter;
  /** Prometheus metrics of this server (its own registry); records nothing with METRICS=off. */
  readonly metrics: Metrics;
  /** The tenants' change events: published by writes, read by event streams (on every instance of the app database). */
  readonly events: ChangeEvents;
}
