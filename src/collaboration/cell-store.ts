import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import { CellRow, type CellOwnerKind } from '../appdb/cell.entity.js';
import type { AppDbManager } from '../appdb/unit-of-work.js';
import type { DocumentRef } from './documents.js';
import { invalidRequest } from '../common/problems.js';
import { authorOfNewCell, checkableCell, contentOfNewCell, mergeUpdates, todayUtc, type DiscussionReply } from './cell-content.js';
import type { CellMiss, ReplyInput } from '../ports/collaboration.js';
import { CELL_COUNT_LIMITS, type CellRules } from './cell-rules.js';

/** The notebook of a tenant (id = tenant ID) or a note (id = note ID). Used inside a unit of work only. */
export interface CellOwner extends DocumentRef {
  kind: CellOwnerKind;
}

/** The owner's cells in display order. */
export function listCells(m: AppDbManager, owner: CellOwner): Promise<CellRow[]> {
  return m.find(CellRow, { where: { ownerKind: owner.kind, ownerId: owner.id }, order: { position: 'ASC' } });
}

/** How many cells each of the owners holds (owners without cells are absent). */
export async function countCells(m: AppDbManager, kind: CellOwnerKind, ownerIds: readonly string[]): Promise<Map<string, number>> {
  if (ownerIds.length === 0) return new Map();
  const rows = await m
    .createQueryBuilder(CellRow, 'c')
    .select('c.ownerId', 'ownerId')
    .addSelect('COUNT(*)', 'count')
    .where('c.ownerKind = :kind AND c.ownerId IN (:...ids)', { kind, ids: ownerIds })
    .groupBy('c.ownerId')
    .getRawMany<{ ownerId: string; count: number }>();
  return new Map(rows.map((r) => [r.ownerId, Number(r.count)]));
}

/**
 * Appends a cell after the owner's last one; 400 when the owner holds CELL_COUNT_LIMITS.cells already. Count and
 * position are read and written in the same write unit (BEGIN IMMEDIATE), so parallel appends, from this process
 * or another, each get their own position and never pass the limit together.
 */
export async function appendCell(
  m: AppDbManager,
  owner: CellOwner,
  input: Record<string, unknown>,
  requestAuthor: string | undefined,
  now: Date,
): Promise<CellRow> {
  const last = await m
    .createQueryBuilder(CellRow, 'c')
    .select('MAX(c.position)', 'max')
    .addSelect('COUNT(*)', 'count')
    .where('c.ownerKind = :kind AND c.ownerId = :id', { kind: owner.kind, id: owner.id })
    .getRawOne<{ max: number | null; count: number | string }>();
  if (Number(last?.count ?? 0) >= CELL_COUNT_LIMITS.cells) {
    throw invalidRequest([{ in: 'body', name: 'cell', message: `the ${owner.kind} holds ${CELL_COUNT_LIMITS.cells} cells, the most it may; delete one first` }]);
  }
  const stamp = now.toISOString();
  const row = m.create(CellRow, {
    cellId: randomUUID(),
    ownerKind: owner.kind,
    ownerId: owner.id,
    position: (last?.max ?? 0) + 1,
    type: String(input.type),
    author: authorOfNewCell(input, requestAuthor),
    content: contentOfNewCell(input),
    createdAt: stamp,
    updatedAt: stamp,
  });
  // JSON columns are typed Record<string, unknown>, which TypeORM's deep-partial type does not accept as is
  await m.insert(CellRow, row as QueryDeepPartialEntity<CellRow>);
  return row;
}

/** Checks a new cell against the cell rules; 400 problem when it breaks one. */
export function assertNewCell(rules: CellRules, input: Record<string, unknown>, requestAuthor: string | undefined): void {
  const issues = rules.checkNew(checkableCell(String(input.type), contentOfNewCell(input), authorOfNewCell(input, requestAuthor)), 'cell');
  if (issues.length > 0) throw invalidRequest(issues);
}

/** The owner's cell with that ID, or null. */
export function findCell(m: AppDbManager, owner: CellOwner, cellId: string): Promise<CellRow | null> {
  return m.findOneBy(CellRow, { cellId, ownerKind: owner.kind, ownerId: owner.id });
}

/** Merges `updates` into the owner's cell; null when it has no such cell, 400 when the result breaks the rules. */
export async function updateCell(
  m: AppDbManager,
  owner: CellOwner,
  cellId: string,
  change: { updates: Record<string, unknown>; author?: string | undefined },
  rules: CellRules,
  now: Date,
): Promise<CellRow | null> {
  const row = await findCell(m, owner, cellId);
  if (row === null) return null;
  const merged = mergeUpdates(row, change.updates, change.author);
  const issues = rules.checkMerged(checkableCell(row.type, merged.content, merged.author), 'updates');
  if (issues.length > 0) throw invalidRequest(issues);
  row.content = merged.content;
  row.author = merged.author;
  row.updatedAt = now.toISOString();
  await m.update(CellRow, { cellId }, { content: row.content, author: row.author, updatedAt: row.updatedAt } as QueryDeepPartialEntity<CellRow>);
  return row;
}

/** Deletes the owner's cell (a discussion with its replies); false when it has no such cell. */
export async function deleteCell(m: AppDbManager, owner: CellOwner, cellId: string): Promise<boolean> {
  const result = await m.delete(CellRow, { cellId, ownerKind: owner.kind, ownerId: owner.id });
  return (result.affected ?? 0) > 0;
}

/** Deletes every cell of the owner. */
export async function deleteAllCells(m: AppDbManager, owner: CellOwner): Promise<void> {
  await m.delete(CellRow, { ownerKind: owner.kind, ownerId: owner.id });
}

/**
 * Appends a reply to the owner's discussion cell (nothing, or what is missing), read and written in the same write unit; 400 past
 * CELL_COUNT_LIMITS.replies, the issue named `issueName` (the request member that holds the reply).
 */
export async function addReply(m: AppDbManager, owner: CellOwner, cellId: string, reply: ReplyInput, now: Date, issueName = 'text'): Promise<CellMiss | undefined> {
  const row = await findCell(m, owner, cellId);
  if (row === null) return { missing: 'cell' };
  if (row.type !== 'discussion') return { missing: 'discussion' };
  const replies = Array.isArray(row.content.replies) ? (row.content.replies as DiscussionReply[]) : [];
  if (replies.length >= CELL_COUNT_LIMITS.replies) {
    throw invalidRequest([{ in: 'body', name: issueName, message: `the discussion holds ${CELL_COUNT_LIMITS.replies} replies, the most it may` }]);
  }
  const added: DiscussionReply = { author: reply.author, text: reply.text, date: reply.date ?? todayUtc(now) };
  const content = { ...row.content, replies: [...replies, added] };
  await m.update(CellRow, { cellId }, { content, updatedAt: now.toISOString() } as QueryDeepPartialEntity<CellRow>);
  return undefined;
}
