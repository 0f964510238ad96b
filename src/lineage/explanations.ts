import type { Missing } from '../common/missing.js';
import type { EntityQuery, ExplainGroup, Explanations, FindingExplanation, MalformedFinding } from '../ports/lineage.js';
import type { Readers } from '../reader-threads/protocol.js';
import type { AfsDefinitions } from '../signals/afs-store.js';
import { readLeased, type TenantEntry, type Tenants } from '../tenants/tenants.js';
import { explainOnReaders } from './explain-job.js';
import { explainFindingRecords } from './finding-explanation.js';

/**
 * Explanations from the tenants' files: counts read on the readers while the file stays leased, signals from the
 * KLS or the AFS.
 */
export class TenantExplanations implements Explanations {
  constructor(
    private readonly tenants: Pick<Tenants, 'lease'>,
    private readonly readers: Readers,
    private readonly definitions: Pick<AfsDefinitions, 'read'>,
  ) {}

  entity(entry: TenantEntry, query: EntityQuery): Promise<ExplainGroup[]> {
    return readLeased(this.tenants, entry, (db) => explainOnReaders(this.readers, entry.compositeId, db.name, query));
  }

  async finding(entry: TenantEntry, findingId: string, locale: EntityQuery['locale']): Promise<FindingExplanation | MalformedFinding | Missing<'finding'>> {
    const explanation = await readLeased(this.tenants, entry, (db) =>
      explainFindingRecords(db, this.definitions, findingId, locale, (query) => explainOnReaders(this.readers, entry.compositeId, db.name, query)),
    );
    return explanation ?? { missing: 'finding' };
  }
}
