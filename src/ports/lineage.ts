import type { components } from '../../generated/openapi.js';
import type { Missing } from '../common/missing.js';
import type { TenantEntry } from '../tenants/tenants.js';

// The port of lineage: the source records of an entity and the explanation of a finding, read from a tenant's file.

/** What to look up: an entity (of a type, or of any), in one month or every month, named in a language. */
export interface EntityQuery {
  entityType: string | null;
  entityId: string;
  /** `YYYY-MM`, or null for every month. */
  timeBucket: string | null;
  locale: 'en' | 'de' | 'fr';
}

/** Matching rows of one Gold table (the contract's ExplainGroup). */
export type ExplainGroup = components['schemas']['ExplainGroup'];

/** Levels 1 and 2 of a finding's explanation (the contract's FindingExplanation). */
export type FindingExplanation = components['schemas']['FindingExplanation'];

/** A finding row that exists but whose probe_id, entity_type or severity the contract cannot carry. */
export interface MalformedFinding {
  malformed: string;
}

/** Explanations of entities and findings. */
export interface Explanations {
  /** The entity's source records grouped by Gold table. */
  entity(entry: TenantEntry, query: EntityQuery): Promise<ExplainGroup[]>;
  /** The finding, its signal's summary and its entity's source records, or missing. */
  finding(entry: TenantEntry, findingId: string, locale: EntityQuery['locale']): Promise<FindingExplanation | MalformedFinding | Missing<'finding'>>;
}
