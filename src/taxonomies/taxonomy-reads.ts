import type { components } from '../../generated/openapi.js';
import type { Missing } from '../common/missing.js';
import type { MemberQuery, Taxonomies, TaxonomyPair } from '../ports/tenant-reads.js';
import { readLeased, type TenantEntry, type Tenants } from '../tenants/tenants.js';
import { getTaxonomyCardinality, getTaxonomyFanout, listSharedMembers } from './cardinality.js';
import { getMemberMappings } from './member-mappings.js';
import { listTaxonomyMembers } from './members.js';

/** Taxonomy reads of the tenants' files. */
export class TaxonomyReads implements Taxonomies {
  constructor(private readonly tenants: Pick<Tenants, 'lease'>) {}

  members(entry: TenantEntry, query: MemberQuery): Promise<components['schemas']['TaxonomyMember'][] | Missing> {
    return readLeased(this.tenants, entry, (db) => listTaxonomyMembers(db, query));
  }

  memberMappings(entry: TenantEntry, memberId: string): Promise<components['schemas']['MemberMapping'][]> {
    return readLeased(this.tenants, entry, (db) => getMemberMappings(db, memberId));
  }

  shared(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['SharedMember'][] | Missing> {
    return readLeased(this.tenants, entry, (db) => listSharedMembers(db, pair));
  }

  fanout(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['TaxonomyFanout'] | Missing> {
    return readLeased(this.tenants, entry, (db) => getTaxonomyFanout(db, pair));
  }

  cardinality(entry: TenantEntry, pair: TaxonomyPair): Promise<components['schemas']['CardinalityDetail'] | Missing> {
    return readLeased(this.tenants, entry, (db) => getTaxonomyCardinality(db, pair));
  }
}
