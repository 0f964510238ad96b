import type { components } from '../../generated/openapi.js';
import { invalidRequest } from '../common/problems.js';
import type { EncodedResults, Jumpbar } from '../ports/tenant-reads.js';
import { readLeased, type TenantEntry, type Tenants } from '../tenants/tenants.js';
import { foldText } from './fold.js';
import type { SearchIndexes } from './search-indexes.js';
import { summariseFindings } from './severity-summary.js';
import { searchTenant } from './tenant-search.js';

/** The jumpbar over the tenants' files and their search indexes. */
export class JumpbarReads implements Jumpbar {
  constructor(
    private readonly registry: Pick<Tenants, 'lease'>,
    private readonly indexes: SearchIndexes,
  ) {}

  tenants(view: Tenants): components['schemas']['TenantListItem'][] {
    return view.list().map((t) => ({ id: t.compositeId, name: t.displayName, source: view.source }));
  }

  summary(entry: TenantEntry): Promise<components['schemas']['SeveritySummary']> {
    return readLeased(this.registry, entry, summariseFindings);
  }

  search(entry: TenantEntry, query: string): Promise<EncodedResults> {
    if (foldText(query) === '') throw invalidRequest([{ in: 'query', name: 'q', message: 'must contain a character other than white space' }]);
    if (query.includes('\u0000')) throw invalidRequest([{ in: 'query', name: 'q', message: 'must not contain U+0000 (NUL)' }]);
    return searchTenant(this.registry, this.indexes, entry, query);
  }
}
