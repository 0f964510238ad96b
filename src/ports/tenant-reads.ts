import type { Readable } from 'node:stream';
import type { components } from '../../generated/openapi.js';
import type { EncodedJson } from '../common/encoded-json.js';
import type { Missing } from '../common/missing.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';

// The ports that read a tenant's file for one operation. Each takes a tenant the handler resolved through the
// caller's view of the tenants (a tenant outside it does not exist) and leases its file itself.

/** An image media type a logo is sent as. */
export type ImageMediaType = 'image/png' | 'image/svg+xml' | 'image/jpeg' | 'image/webp';

/** A logo ready to send, with the policy every logo is sent with. */
export interface Logo {
  bytes: Buffer;
  mediaType: ImageMediaType;
  etag: string;
  source: 'database' | 'file';
  securityPolicy: string;
}

/** The two pipeline artifact keys. */
export type ArtifactKey = 'graph_json' | 'graph_html';

/** A pipeline artifact ready to send, with its `Content-Security-Policy`. */
export type PipelineArtifact =
  | { key: 'graph_json'; graph: Record<string, unknown>; etag: string; securityPolicy: string }
  | { key: 'graph_html'; html: string; etag: string; securityPolicy: string };

/** Why an artifact cannot be sent. */
export type ArtifactMiss = Missing<'absent' | 'not-a-json-object'>;

/** A stored PDF report. */
export interface Report {
  key: string;
  pdf: Buffer;
  etag: string;
}

/** Logos, pipeline artifacts and reports of a tenant. */
export interface TenantContent {
  /** The logo stored in the tenant file, else the file in LOGO_DIR named after the slug; missing when neither is an image. */
  logo(entry: TenantEntry): Promise<Logo | Missing<'logo'>>;
  pipelineArtifact(entry: TenantEntry, key: ArtifactKey): Promise<PipelineArtifact | ArtifactMiss>;
  /** The report `key`, or missing. */
  report(entry: TenantEntry, key: string): Promise<Report | Missing<'report'>>;
}

/** Search results as the JSON bytes an answer sends. */
export type EncodedResults = EncodedJson<components['schemas']['SearchResults']>;

/** The jumpbar: the caller's tenants, a tenant's finding summary, and search. */
export interface Jumpbar {
  /** Every tenant of `view` (the caller's), for the list. */
  tenants(view: Tenants): components['schemas']['TenantListItem'][];
  summary(entry: TenantEntry): Promise<components['schemas']['SeveritySummary']>;
  /** Searches the tenant's names; 400 for a query of white space alone or with U+0000, 503 while its index cannot be built. */
  search(entry: TenantEntry, query: string): Promise<EncodedResults>;
}

/** Two taxonomies (and optionally a node of each and a dimension) whose members are compared. */
export interface TaxonomyPair {
  a: string;
  b: string;
  nodeA?: string | undefined;
  nodeB?: string | undefined;
  dim?: string | undefined;
}

/** A taxonomy's members, by node or matching a search. */
export interface MemberQuery {
  taxonomyId: string;
  nodeId?: string | undefined;
  q?: string | undefined;
  locale: 'en' | 'de' | 'fr';
}

/** Taxonomy members and how two taxonomies map onto each other. */
export interface Taxonomies {
  members(entry: TenantEntry, query: MemberQuery): Promise<components['schemas']['TaxonomyMember'][] | Missing>;
  memberMappings(entry: TenantEntry, memberId: string): Promise<components['schemas']['MemberMapping'][]>;
  shared(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['SharedMember'][] | Missing>;
  fanout(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['TaxonomyFanout'] | Missing>;
  cardinality(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['CardinalityDetail'] | Missing>;
}

/** A started export: the CSV stream, whether rows beyond the cap were left out, and the rows sent so far. */
export interface DimensionExport {
  entity: string;
  truncated: boolean;
  csv: Readable;
  /** Data rows the stream has carried (read when the audit line is written, once the stream has closed). */
  readonly rows: number;
}

/** CSV exports of dimension tables. */
export interface DimensionExports {
  /**
   * Starts the export of `entity` with the request's raw `query` (the contract's `declaredQuery` names and
   * `f.<column>` filters); `missing` for an entity that is no dimension; 400 for bad options; 503 when the file was
   * swapped as the export started.
   */
  start(entry: TenantEntry, entity: string, query: Readonly<Record<string, unknown>>, declaredQuery: readonly string[]): Promise<DimensionExport | Missing>;
}
