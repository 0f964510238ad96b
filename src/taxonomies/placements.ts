import type Database from 'better-sqlite3';
import { compareIds, memberRows, nodeExists, taxonomyExists, type MemberRow } from './taxonomy-rows.js';
import type { Missing } from '../common/missing.js';
import type { TaxonomyPair } from '../ports/tenant-reads.js';

/** Who sits where in one taxonomy (members restricted to one dimension type when asked). */
export interface Placements {
  readonly taxonomyId: string;
  /** member ID → the nodes it is attached to */
  readonly nodesByMember: Map<string, Set<string>>;
  /** node ID → its members (only nodes with at least one member) */
  readonly membersByNode: Map<string, Set<string>>;
  /** member ID → its first row (name and dim) */
  readonly rowByMember: Map<string, MemberRow>;
}

/** Two taxonomies to compare, with the optional node and dimension filters of the cardinality operations. */
export type PairQuery = TaxonomyPair;

/** Loads the placements of taxonomy `taxonomyId` (one query; taxonomies are small). */
export function loadPlacements(db: Database.Database, taxonomyId: string, dim: string | undefined): Placements {
  const placements: Placements = { taxonomyId, nodesByMember: new Map(), membersByNode: new Map(), rowByMember: new Map() };
  for (const row of memberRows(db, taxonomyId, dim === undefined ? {} : { dim })) {
    addTo(placements.nodesByMember, row.member_id, row.node_id);
    addTo(placements.membersByNode, row.node_id, row.member_id);
    if (!placements.rowByMember.has(row.member_id)) placements.rowByMember.set(row.member_id, row);
  }
  return placements;
}

/** Checks that both taxonomies (and the named nodes) exist, then loads both sides. */
export function loadPair(db: Database.Database, query: PairQuery): { a: Placements; b: Placements } | Missing {
  for (const [name, id] of [['a', query.a], ['b', query.b]] as const) {
    if (!taxonomyExists(db, id)) return { missing: `taxonomy "${id}" (${name}) does not exist` };
  }
  if (query.nodeA !== undefined && !nodeExists(db, query.a, query.nodeA)) return { missing: `node "${query.nodeA}" is not a node of taxonomy "${query.a}"` };
  if (query.nodeB !== undefined && !nodeExists(db, query.b, query.nodeB)) return { missing: `node "${query.nodeB}" is not a node of taxonomy "${query.b}"` };
  return { a: loadPlacements(db, query.a, query.dim), b: loadPlacements(db, query.b, query.dim) };
}

/** Members present in both sides, sorted by ID. */
export function sharedMemberIds(a: Placements, b: Placements): string[] {
  return [...a.nodesByMember.keys()].filter((id) => b.nodesByMember.has(id)).sort(compareIds);
}

/** For each node of `from` with a member shared with `to`: the distinct nodes of `to` those members reach. */
export function reachedNodes(from: Placements, to: Placements): Map<string, Set<string>> {
  const reached = new Map<string, Set<string>>();
  for (const [node, members] of from.membersByNode) {
    for (const member of members) {
      for (const target of to.nodesByMember.get(member) ?? []) addTo(reached, node, target);
    }
  }
  return reached;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  set.add(value);
}
