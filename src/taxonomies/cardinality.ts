import type Database from 'better-sqlite3';
import type { components } from '../../generated/openapi.js';
import { toApiLocalizedName, type NameColumns } from './localized.js';
import { UNKNOWN_DIM } from './members.js';
import { isMissing, type Missing } from '../common/missing.js';
import { compareIds } from './taxonomy-rows.js';
import { loadPair, reachedNodes, sharedMemberIds, type PairQuery, type Placements } from './placements.js';

/** Contract shapes of the cardinality operations. */
export type SharedMember = components['schemas']['SharedMember'];
export type TaxonomyFanout = components['schemas']['TaxonomyFanout'];
export type NodeFanout = components['schemas']['NodeFanout'];
export type CardinalityDetail = components['schemas']['CardinalityDetail'];
type Relation = CardinalityDetail['relation'];

/** Ratios and means are rounded to this many decimals. */
const DECIMALS = 4;
const round = (value: number): number => Math.round(value * 10 ** DECIMALS) / 10 ** DECIMALS;
const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : round(part / whole));

/** Members in both taxonomies, optionally only those attached to `nodeA` / `nodeB`; ordered by member ID. */
export function listSharedMembers(db: Database.Database, query: PairQuery): SharedMember[] | Missing {
  const pair = loadPair(db, query);
  if (isMissing(pair)) return pair;
  const { a, b } = pair;
  return sharedMemberIds(a, b)
    .filter((id) => query.nodeA === undefined || a.nodesByMember.get(id)?.has(query.nodeA))
    .filter((id) => query.nodeB === undefined || b.nodesByMember.get(id)?.has(query.nodeB))
    .map((id) => toApiSharedMember(id, a, b));
}

/** Maps a shared member to the contract's SharedMember (name and dim from its row in `a`). */
export function toApiSharedMember(memberId: string, a: Placements, b: Placements): SharedMember {
  const row = a.rowByMember.get(memberId);
  return {
    member_id: memberId,
    dim: row?.dim ?? UNKNOWN_DIM,
    name: toApiLocalizedName(row ?? { name_en: null, name_de: null, name_fr: null }, memberId),
    nodesA: [...(a.nodesByMember.get(memberId) ?? [])].sort(compareIds),
    nodesB: [...(b.nodesByMember.get(memberId) ?? [])].sort(compareIds),
  };
}

/** Fan-outs from `a` to `b`: how many nodes of `a` reach 1, 2, … distinct nodes of `b`, and each node's own. */
export function getTaxonomyFanout(db: Database.Database, query: PairQuery): TaxonomyFanout | Missing {
  const pair = loadPair(db, query);
  if (isMissing(pair)) return pair;
  const reached = reachedNodes(pair.a, pair.b);
  return { a: query.a, b: query.b, dim: query.dim ?? null, ...fanoutFigures(reached), nodeFanouts: nodeFanouts(db, query.a, reached) };
}

const NO_NAMES: NameColumns = { name_en: null, name_de: null, name_fr: null };
const NODE_NAMES_SQL = 'SELECT node_id, name_en, name_de, name_fr FROM taxonomy_nodes WHERE taxonomy_id = ?';

/** Each node of `taxonomyId` in `reached` with its name and fan-out, largest fan-out first, then by node ID. */
export function nodeFanouts(db: Database.Database, taxonomyId: string, reached: Map<string, Set<string>>): NodeFanout[] {
  const names = new Map<string, NameColumns>();
  // one query for the taxonomy's nodes: a taxonomy is small, and most of its nodes are in `reached`
  for (const row of db.prepare(NODE_NAMES_SQL).all(taxonomyId) as (NameColumns & { node_id: string })[]) names.set(row.node_id, row);
  return [...reached]
    .map(([nodeId, targets]) => ({ node_id: nodeId, node_name: toApiLocalizedName(names.get(nodeId) ?? NO_NAMES, nodeId), fanout: targets.size }))
    .sort((x, y) => y.fanout - x.fanout || compareIds(x.node_id, y.node_id));
}

/** Counts, coverage ratios and the relation between `a` and `b` (see the contract for each field). */
export function getTaxonomyCardinality(db: Database.Database, query: PairQuery): CardinalityDetail | Missing {
  const pair = loadPair(db, query);
  if (isMissing(pair)) return pair;
  const { a, b } = pair;
  const shared = sharedMemberIds(a, b).length;
  const membersA = a.nodesByMember.size;
  const membersB = b.nodesByMember.size;
  const forward = reachedNodes(a, b);
  const nodePairs = [...forward.values()].reduce((sum, targets) => sum + targets.size, 0);
  return {
    a: query.a,
    b: query.b,
    dim: query.dim ?? null,
    counts: { nodesA: a.membersByNode.size, nodesB: b.membersByNode.size, membersA, membersB, sharedMembers: shared, nodePairs },
    ratios: { coverageA: ratio(shared, membersA), coverageB: ratio(shared, membersB), jaccard: ratio(shared, membersA + membersB - shared) },
    relation: relationOf(fanoutOf(a, b).max, fanoutOf(b, a).max),
  };
}

/** The fan-out figures of `from` → `to`. */
export function fanoutOf(from: Placements, to: Placements): FanoutFigures {
  return fanoutFigures(reachedNodes(from, to));
}

type FanoutFigures = Pick<TaxonomyFanout, 'nodes' | 'distribution' | 'max' | 'mean'>;

/** Count, distribution, maximum and mean of the fan-outs in `reached` (node → the distinct target nodes). */
function fanoutFigures(reached: Map<string, Set<string>>): FanoutFigures {
  const fanouts = [...reached.values()].map((targets) => targets.size);
  const buckets = new Map<number, number>();
  for (const fanout of fanouts) buckets.set(fanout, (buckets.get(fanout) ?? 0) + 1);
  const total = fanouts.reduce((sum, f) => sum + f, 0);
  return {
    nodes: fanouts.length,
    distribution: [...buckets.entries()].sort(([x], [y]) => x - y).map(([fanout, nodes]) => ({ fanout, nodes })),
    max: fanouts.length === 0 ? 0 : Math.max(...fanouts),
    mean: fanouts.length === 0 ? 0 : round(total / fanouts.length),
  };
}

/** Relation from the largest fan-out each way: more than one target node on a side makes it "many". */
export function relationOf(maxAB: number, maxBA: number): Relation {
  if (maxAB > 1) return maxBA > 1 ? 'many_to_many' : 'one_to_many';
  return maxBA > 1 ? 'many_to_one' : 'one_to_one';
}
