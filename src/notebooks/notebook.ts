import { rowTag } from '../common/entity-tags.js';
import { NotebookRow } from '../appdb/notebook.entity.js';
import type { AppDbManager, LockKey, UnitOfWork } from '../appdb/unit-of-work.js';
import { assertPrecondition, type Precondition } from '../common/entity-tags.js';
import { toApiCell } from './cell-content.js';
import type { CellRules } from './cell-rules.js';
import type { ApiNotebook, NotebookMiss, NotebookRead, Notebooks, ReplyInput, TaggedNotebook } from '../ports/collaboration.js';
import { addReply, appendCell, assertNewCell, deleteCell, listCells, updateCell, type CellOwner } from './cell-store.js';

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

/** The notebook's entity tag (it changes with every write: see touch). */
export const notebookTag = (row: NotebookRow): string => rowTag('notebook', row.tenantId, row);

async function touch(m: AppDbManager, row: NotebookRow, now: Date): Promise<void> {
  row.updatedAt = now.toISOString();
  row.revision += 1;
  await m.update(NotebookRow, { tenantId: row.tenantId }, { updatedAt: row.updatedAt, revision: row.revision });
}

/** Checks `If-Match` against the notebook (inside the write unit, after its lock): 412 when it does not hold. */
function assertCurrent(row: NotebookRow, precondition: Precondition | undefined): void {
  assertPrecondition(precondition, `the notebook of ${row.tenantId}`, notebookTag(row));
}

async function taggedNotebook(m: AppDbManager, row: NotebookRow): Promise<TaggedNotebook> {
  return { notebook: await toApiNotebook(m, row), etag: notebookTag(row) };
}

/** The tenants' notebooks on the app database, each write one unit of work under the notebook's lock. */
export class AppDbNotebooks implements Notebooks {
  constructor(
    private readonly units: UnitOfWork,
    private readonly rules: CellRules,
    /** The time that stamps what is written, in ms since the epoch. */
    private readonly now: () => number,
  ) {}

  /**
   * The tenant's notebook and its tag; an empty one is created on first access. When `isHeld` says the caller holds
   * the current tag, its cells are not read (a revalidation costs one row).
   */
  async read(tenantId: string, isHeld: (etag: string) => boolean = () => false): Promise<NotebookRead> {
    const read = async (m: AppDbManager, row: NotebookRow): Promise<NotebookRead> => {
      const etag = notebookTag(row);
      return { etag, notebook: isHeld(etag) ? null : await toApiNotebook(m, row) };
    };
    const existing = await this.units.read(async (m) => {
      const row = await m.findOneBy(NotebookRow, { tenantId });
      return row === null ? null : read(m, row);
    });
    if (existing !== null) return existing;
    return this.units.write(lockOf(tenantId), async (m) => read(m, await ensureNotebook(m, tenantId, new Date(this.now()))));
  }

  /** Appends a cell (400 when it breaks the cell rules); the updated notebook and the new cell's ID. */
  async addCell(
    tenantId: string,
    request: { cell: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<TaggedNotebook & { cellId: string }> {
    assertNewCell(this.rules, request.cell, request.author);
    return this.units.write(lockOf(tenantId), async (m) => {
      const now = new Date(this.now());
      const notebook = await ensureNotebook(m, tenantId, now);
      assertCurrent(notebook, precondition);
      const row = await appendCell(m, ownerOf(tenantId), request.cell, request.author, now);
      await touch(m, notebook, now);
      return { ...(await taggedNotebook(m, notebook)), cellId: row.cellId };
    });
  }

  /** Merges `updates` into a cell (400 when the result breaks the cell rules); the updated notebook, or 'no-cell'. */
  updateCell(
    tenantId: string,
    cellId: string,
    change: { updates: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<TaggedNotebook | NotebookMiss> {
    return this.units.write(lockOf(tenantId), async (m) => {
      const now = new Date(this.now());
      const notebook = await ensureNotebook(m, tenantId, now);
      assertCurrent(notebook, precondition);
      if ((await updateCell(m, ownerOf(tenantId), cellId, change, this.rules, now)) === null) return 'no-cell';
      await touch(m, notebook, now);
      return taggedNotebook(m, notebook);
    });
  }

  /** Deletes a cell; the updated notebook, or 'no-cell'. */
  deleteCell(tenantId: string, cellId: string, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss> {
    return this.units.write(lockOf(tenantId), async (m) => {
      const now = new Date(this.now());
      const notebook = await ensureNotebook(m, tenantId, now);
      assertCurrent(notebook, precondition);
      if (!(await deleteCell(m, ownerOf(tenantId), cellId))) return 'no-cell';
      await touch(m, notebook, now);
      return taggedNotebook(m, notebook);
    });
  }

  /** Appends a reply to a discussion cell; the updated notebook, or why not. */
  addReply(tenantId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss> {
    return this.units.write(lockOf(tenantId), async (m) => {
      const now = new Date(this.now());
      const notebook = await ensureNotebook(m, tenantId, now);
      assertCurrent(notebook, precondition);
      const outcome = await addReply(m, ownerOf(tenantId), cellId, reply, now);
      if (outcome !== 'added') return outcome;
      await touch(m, notebook, now);
      return taggedNotebook(m, notebook);
    });
  }
}
