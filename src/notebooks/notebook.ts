import type { DataSource } from 'typeorm';
import type { components } from '../../generated/openapi.js';
import { NotebookRow } from '../appdb/notebook.entity.js';
import { readUnit, writeUnit, type AppDbManager, type LockKey } from '../appdb/unit-of-work.js';
import { toApiCell } from './cell-content.js';
import type { CellRules } from './cell-rules.js';
import { addReply, appendCell, assertNewCell, deleteCell, listCells, updateCell, type CellOwner, type ReplyInput } from './cell-store.js';

/** The notebook as the API returns it; `cells` is a JSON string of the cells in display order. */
export type ApiNotebook = components['schemas']['Notebook'];

/** Why a notebook change was not made (the handler answers 404). */
export type NotebookMiss = 'no-cell' | 'not-discussion';

const ownerOf = (tenantId: string): CellOwner => ({ kind: 'notebook', id: tenantId });
/** Every write to a tenant's notebook waits for the ones before it (see unit-of-work.ts). */
const lockOf = (tenantId: string): LockKey => `notebook:${tenantId}`;

async function toApiNotebook(m: AppDbManager, row: NotebookRow): Promise<ApiNotebook> {
  const cells = await listCells(m, ownerOf(row.tenantId));
  return { tenant_id: row.tenantId, cells: JSON.stringify(cells.map(toApiCell)), created_at: row.createdAt, updated_at: row.updatedAt };
}

/** The tenant's notebook row, created empty when missing (inside a write unit). */
async function ensureNotebook(m: AppDbManager, tenantId: string, now: Date): Promise<NotebookRow> {
  const stamp = now.toISOString();
  await m.createQueryBuilder().insert().into(NotebookRow).values({ tenantId, createdAt: stamp, updatedAt: stamp }).orIgnore().execute();
  return m.findOneByOrFail(NotebookRow, { tenantId });
}

async function touch(m: AppDbManager, row: NotebookRow, now: Date): Promise<void> {
  row.updatedAt = now.toISOString();
  await m.update(NotebookRow, { tenantId: row.tenantId }, { updatedAt: row.updatedAt });
}

/** The tenant's notebook; an empty one is created on first access. */
export async function readNotebook(dataSource: DataSource, tenantId: string): Promise<ApiNotebook> {
  const existing = await readUnit(dataSource, async (m) => {
    const row = await m.findOneBy(NotebookRow, { tenantId });
    return row === null ? null : toApiNotebook(m, row);
  });
  if (existing !== null) return existing;
  return writeUnit(dataSource, lockOf(tenantId), async (m) => toApiNotebook(m, await ensureNotebook(m, tenantId, new Date())));
}

/** Appends a cell (400 when it breaks the cell rules); the updated notebook and the new cell's ID. */
export async function appendNotebookCell(
  dataSource: DataSource,
  rules: CellRules,
  tenantId: string,
  request: { cell: Record<string, unknown>; author?: string | undefined },
): Promise<{ notebook: ApiNotebook; cellId: string }> {
  assertNewCell(rules, request.cell, request.author);
  return writeUnit(dataSource, lockOf(tenantId), async (m) => {
    const now = new Date();
    const notebook = await ensureNotebook(m, tenantId, now);
    const row = await appendCell(m, ownerOf(tenantId), request.cell, request.author, now);
    await touch(m, notebook, now);
    return { notebook: await toApiNotebook(m, notebook), cellId: row.cellId };
  });
}

/** Merges `updates` into a cell; the updated notebook, or 'no-cell'. */
export async function updateNotebookCell(
  dataSource: DataSource,
  rules: CellRules,
  tenantId: string,
  cellId: string,
  change: { updates: Record<string, unknown>; author?: string | undefined },
): Promise<ApiNotebook | NotebookMiss> {
  return writeUnit(dataSource, lockOf(tenantId), async (m) => {
    const now = new Date();
    const notebook = await ensureNotebook(m, tenantId, now);
    if ((await updateCell(m, ownerOf(tenantId), cellId, change, rules, now)) === null) return 'no-cell';
    await touch(m, notebook, now);
    return toApiNotebook(m, notebook);
  });
}

/** Deletes a cell; the updated notebook, or 'no-cell'. */
export async function deleteNotebookCell(dataSource: DataSource, tenantId: string, cellId: string): Promise<ApiNotebook | NotebookMiss> {
  return writeUnit(dataSource, lockOf(tenantId), async (m) => {
    const now = new Date();
    const notebook = await ensureNotebook(m, tenantId, now);
    if (!(await deleteCell(m, ownerOf(tenantId), cellId))) return 'no-cell';
    await touch(m, notebook, now);
    return toApiNotebook(m, notebook);
  });
}

/** Appends a reply to a discussion cell; the updated notebook, or why not. */
export async function replyInNotebook(dataSource: DataSource, tenantId: string, cellId: string, reply: ReplyInput): Promise<ApiNotebook | NotebookMiss> {
  return writeUnit(dataSource, lockOf(tenantId), async (m) => {
    const now = new Date();
    const notebook = await ensureNotebook(m, tenantId, now);
    const outcome = await addReply(m, ownerOf(tenantId), cellId, reply, now);
    if (outcome !== 'added') return outcome;
    await touch(m, notebook, now);
    return toApiNotebook(m, notebook);
  });
}
