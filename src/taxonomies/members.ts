import type Database from 'better-sqlite3';
import type { components } from '../../generated/openapi.js';
import { foldForSearch, toApiLocalizedName } from './localized.js';
import { compareIds, memberRows, nodeExists, taxonomyExists, type MemberRow } from './taxonomy-rows.js';
import type { Missing } from '../common/missing.js';
import type { MemberQuery } from '../ports/tenant-reads.js';

/** A member as the contract sends it. */
export type TaxonomyMember = components['schemas']['TaxonomyMember'];

/** Dimension type sent for a member whose `dim` is NULL in the KLS. */
export const UNKNOWN_DIM = 'Unknown';


/** Maps one `taxonomy_members` row to the contract's TaxonomyMember. */
export function toApiTaxonomyMember(row: MemberRow): TaxonomyMember {
  return {
    taxonomy_id: row.taxonomy_id,
    node_id: row.node_id,
    member_id: row.member_id,
    dim: row.dim ?? UNKNOWN_DIM,
    name: toApiLocalizedName(row, row.member_id),
  };
}

/**
 * Members of a taxonomy: all, those of `nodeId`, or (when `q` is given, ignoring `nodeId`) those whose ID or
 * en/de/fr name contains `q`, case- and accent-insensitively. Ordered by node, name in `locale`, member ID.
 */
export function listTaxonomyMembers(db: Database.Database, query: MemberQuery): TaxonomyMember[] | Missing {
  if (!taxonomyExists(db, query.taxonomyId)) return { missing: `taxonomy "${query.taxonomyId}" does not exist` };
  let members: TaxonomyMember[];
  if (query.q !== undefined) {
    const needle = foldForSearch(query.q);
    members = memberRows(db, query.taxonomyId)
      .map(toApiTaxonomyMember)
      .filter((m) => [m.member_id, m.name.en, m.name.de, m.name.fr].some((text) => foldForSearch(text).includes(needle)));
  } else {
    if (query.nodeId !== undefined && !nodeExists(db, query.taxonomyId, query.nodeId)) {
      return { missing: `node "${query.nodeId}" is not a node of taxonomy "${query.taxonomyId}"` };
    }
    members = memberRows(db, query.taxonomyId, query.nodeId === undefined ? {} : { nodeId: query.nodeId }).map(toApiTaxonomyMember);
  }
  const collator = new Intl.Collator(query.locale, { sensitivity: 'base', numeric: true });
  return members.sort(
    (x, y) => compareIds(x.node_id, y.node_id) || collator.compare(x.name[query.locale], y.name[query.locale]) || compareIds(x.member_id, y.member_id),
  );
}

