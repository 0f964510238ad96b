import type { PairQuery } from './placements.js';

/** The query values of the cardinality operations as a PairQuery (absent filters left out). */
export function toPairQuery(query: { a: string; b: string; dim?: string; nodeA?: string; nodeB?: string }): PairQuery {
  const pair: PairQuery = { a: query.a, b: query.b };
  if (query.dim !== undefined) pair.dim = query.dim;
  if (query.nodeA !== undefined) pair.nodeA = query.nodeA;
  if (query.nodeB !== undefined) pair.nodeB = query.nodeB;
  return pair;
}
