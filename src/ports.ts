import type Database from 'better-sqlite3';
import type { AppDatabase } from './appdb/app-database.js';
import type { CostLimiter } from './auth/cost-limits.js';
import type { TokenVerifier } from './auth/oidc.js';
import type { BuildLabel } from './build-label.js';
import type { Config } from './config.js';
import type { ContractDocument } from './contract-document.js';
import type { ContractSchemas } from './contract-schemas.js';
import type { BuildInfo } from './drift/build-info.js';
import type { CachedDrift } from './drift/drift-cache.js';
import type { Drain } from './health/drain.js';
import type { Precondition } from './common/entity-tags.js';
import type { GitIdentity } from './identity/git-identity.js';
import type { EntityQuery, ExplainGroup } from './lineage/explain.js';
import type { FindingExplanation } from './lineage/finding-explanation.js';
import type { MalformedFinding } from './lineage/finding.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { WrittenNarrative } from './narrative/narratives.js';
import type { NarrativeFinding, NarrativeLocale } from './narrative/prompt.js';
import type { ReplyInput, ReplyOutcome } from './notebooks/cell-store.js';
import type { NotebookMiss, NotebookRead, TaggedNotebook } from './notebooks/notebook.js';
import type { ApiNote, ApiNoteSummary, TaggedRead } from './notes/notes.js';
import type { Readers } from './reader-threads/protocol.js';
import type { Locale } from './search/localized.js';
import type { SearchIndexes } from './search/search-indexes.js';
import type { AfsDefinitions } from './signals/afs-store.js';
import type { SignalTools } from './signals/signal-tools.js';
import type { KlsStore } from './store/kls-store.js';
import type { KlsLease, TenantEntry, Tenants } from './tenants/tenants.js';
import type { ApiSavedView } from './views/saved-views.js';

/** The narrow ports handlers and domain code use; built once by createDeps, replaced wholesale in tests. */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly buildLabel: BuildLabel;
  readonly contract: ContractDocument;
  /** The contract's component schemas, for checks of values outside request validation. */
  readonly schemas: ContractSchemas;
  /** The tenants a request may use: the registry itself, or (with sign-in) the caller's scope of it. */
  readonly tenants: Tenants;
  /** KLS store mode: the object-store sync (status, refresh); null in local mode. */
  readonly store: KlsStore | null;
  readonly appDb: AppDatabase;
  /** The tenants' notebooks (on the app database). */
  readonly notebooks: Notebooks;
  /** The tenants' notes (on the app database). */
  readonly notes: Notes;
  /** The tenants' saved views (on the app database). */
  readonly views: SavedViews;
  /** Git identity, from the tenant's work tree when one exists, else the global git configuration. */
  readonly identity: (tenant: TenantEntry | null) => Promise<GitIdentity>;
  /** Drift reports: the code-hosting API (GitHub REST via Octokit; SDK errors become drift statuses), cached per tenant and file generation. */
  readonly drift: Drift;
  /** Narratives of findings, written through the language-model API (Anthropic Messages); null when ANTHROPIC_API_KEY is unset. */
  readonly narratives: NarrativeWriter | null;
  /** Signal contract checker and compiler, run as child processes (docs/signal-language.md). */
  readonly signalTools: SignalTools;
  /** The signal definitions of the AFS folder (AFS_DIR): listed, loaded, saved, looked up. */
  readonly signalDefinitions: SignalDefinitions;
  /** Where exports and explains read tenant files: reader threads, or the main thread in bounded steps (READER_THREADS). */
  readonly readers: Readers;
  /** Explanations of entities and findings (on `readers`). */
  readonly explanations: Explanations;
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
  /** The time, in ms since the epoch, that stamps what notebooks, notes and saved views write (the system clock). */
  readonly now: () => number;
}

/** A cell as a request adds it, and the author the server records (the caller's, with sign-in). */
export interface NewCell {
  cell: Record<string, unknown>;
  author?: string | undefined;
}

/** Members to merge into a stored cell, and the author the server records. */
export interface CellChange {
  updates: Record<string, unknown>;
  author?: string | undefined;
}

/**
 * A tenant's notebook. Writes take `precondition` (If-Match: 412 when it fails) and answer the updated notebook
 * with its new tag; a cell that breaks the cell rules is a 400 problem.
 */
export interface Notebooks {
  /** The notebook (created empty on first access) and its tag; `notebook` null when `isHeld` holds the tag. */
  read(tenantId: string, isHeld?: (etag: string) => boolean): Promise<NotebookRead>;
  addCell(tenantId: string, cell: NewCell, precondition?: Precondition): Promise<TaggedNotebook & { cellId: string }>;
  updateCell(tenantId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
  deleteCell(tenantId: string, cellId: string, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
  addReply(tenantId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
}

/**
 * A tenant's notes. Writes take `precondition` (If-Match: 412 when it fails, also for a missing note) and answer
 * the note's new tag, or null when the note (or the cell) does not exist.
 */
export interface Notes {
  /** Summaries, most recently updated first, and the list's tag; `value` null when `isHeld` holds the tag. */
  list(tenantId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNoteSummary[]>>;
  create(tenantId: string, note: { title: string; tags: string[]; author: string | null }): Promise<{ note: ApiNote; etag: string }>;
  /** The note with its cells and its tag, or null; `value` null when `isHeld` holds the tag. */
  read(tenantId: string, noteId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNote> | null>;
  addCell(tenantId: string, noteId: string, cell: NewCell, precondition?: Precondition): Promise<{ cellId: string; etag: string } | null>;
  addReply(tenantId: string, noteId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<{ etag: string } | Exclude<ReplyOutcome, 'added'> | 'no-note'>;
  updateMetadata(tenantId: string, noteId: string, change: { title?: string | undefined; tags?: string[] | undefined }, precondition?: Precondition): Promise<string | null>;
  updateCell(tenantId: string, noteId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<string | null>;
  /** Deletes the note with its cells; false when there is no such note. */
  delete(tenantId: string, noteId: string, precondition?: Precondition): Promise<boolean>;
  deleteCell(tenantId: string, noteId: string, cellId: string, precondition?: Precondition): Promise<string | null>;
}

/** The signal definitions of the AFS folder. */
export type SignalDefinitions = Pick<AfsDefinitions, 'list' | 'load' | 'save' | 'read'>;

/** Explanations from a tenant file the caller holds (`db`, the file of tenant `tenantId`). */
export interface Explanations {
  /** The entity's source records grouped by Gold table. */
  entity(db: Database.Database, tenantId: string, query: EntityQuery): Promise<ExplainGroup[]>;
  /** The finding, its signal's summary and its entity's source records; null when unknown. */
  finding(db: Database.Database, tenantId: string, findingId: string, locale: Locale): Promise<FindingExplanation | MalformedFinding | null>;
}

/** Narratives of findings. */
export interface NarrativeWriter {
  /** 3 to 4 sentences on `finding` in `locale`, or why not; `lease` (the finding's tenant file) is released before the model is called. */
  write(lease: KlsLease, finding: NarrativeFinding, locale: NarrativeLocale): Promise<WrittenNarrative>;
}

/** Drift of the tenants' builds against their remote reference. */
export interface Drift {
  /** The report of the tenant's file at `generation`, whose `build_info` is `buildInfo`, and how long it stays valid. */
  report(tenantId: string, generation: number, buildInfo: BuildInfo): Promise<CachedDrift>;
}

/** A tenant's saved views. Writes take `precondition` (If-Match: 412 when it fails, also for a missing view). */
export interface SavedViews {
  /** The views (of one entity when given), most recently changed first, each with its tag when `withTags`; the list's tag. */
  list(tenantId: string, entity?: string, withTags?: boolean): Promise<{ etag: string; views: ApiSavedView[] }>;
  /** The new view and its tag; 400 when `params` is beyond the size limit. */
  create(tenantId: string, view: { entity: string; name: string; params: Record<string, unknown>; author?: string | undefined }): Promise<{ view: ApiSavedView; etag: string }>;
  /** The view's tag after the change (unchanged when nothing is given), or null when there is no such view. */
  update(tenantId: string, change: { viewId: string; name?: string | undefined; params?: Record<string, unknown> | undefined }, precondition?: Precondition): Promise<string | null>;
  /** False when there is no such view. */
  delete(tenantId: string, viewId: string, precondition?: Precondition): Promise<boolean>;
}
