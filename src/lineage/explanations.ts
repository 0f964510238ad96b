import type Database from 'better-sqlite3';
import type { Readers } from '../reader-threads/protocol.js';
import type { Locale } from '../search/localized.js';
import type { AfsDefinitions } from '../signals/afs-store.js';
import type { EntityQuery, ExplainGroup } from './explain.js';
import { explainOnReaders } from './explain-job.js';
import { explainFindingRecords, type FindingExplanation } from './finding-explanation.js';
import type { MalformedFinding } from './finding.js';

/** Explanations from a tenant file the caller holds: counts read on the readers, signals from the KLS or the AFS. */
export class Explanations {
  constructor(
    private readonly readers: Readers,
    private readonly definitions: Pick<AfsDefinitions, 'read'>,
  ) {}

  /** The entity's source records grouped by Gold table, from `db`, the file of tenant `tenantId`. */
  entity(db: Database.Database, tenantId: string, query: EntityQuery): Promise<ExplainGroup[]> {
    return explainOnReaders(this.readers, tenantId, db.name, query);
  }

  /** The finding, its signal's summary and its entity's source records; null when unknown, MalformedFinding when its row breaks the KLS contract. */
  finding(db: Database.Database, tenantId: string, findingId: string, locale: Locale): Promise<FindingExplanation | MalformedFinding | null> {
    return explainFindingRecords(db, this.definitions, findingId, locale, (query) => this.entity(db, tenantId, query));
  }
}
