import { rowTag } from '../common/entity-tags.js';
import { NotebookRow } from '../appdb/notebook.entity.js';
import type { AppDbManager } from '../appdb/unit-of-work.js';
import { assertPrecondition, type Precondition } from '../common/entity-tags.js';
import { toApiCell } from '../collaboration/cell-content.js';
import type { CellRules } from '../collaboration/cell-rules.js';
import { addReply, appendCell, assertNewCell, deleteCell, listCells, updateCell, type CellOwner } from '../collaboration/cell-store.js';
import { nextRevision, type DocumentWrites } from '../collaboration/documents.js';
import { isMissing, type Missing } from '../common/missing.js';
import type { ApiNotebook, CellMiss, NotebookRead, Notebooks, ReplyInput, TaggedNotebook } from '../ports/collaboration.js';

const notebookOf = (tenantId: string): CellOwner => ({ kind: 'notebook', id: tenantId });

async function toApiNotebook(m: AppDbManager, row: NotebookRow): Promise<ApiNotebook> {
  const cells = await listCells(m, notebookOf(row.tenantId));
  return { tenant_id: row.tenantId, cells: JSON.stringify(cells.map(toApiCell)), created_at: row.createdAt, updated_at: row.updatedAt };
}

/** The tenant's notebook row, created empty when missing (inside a write unit). */
async function ensureNotebook(m: AppDbManager, tenantId: string, now: Date): Promise<NotebookRow> {
  const stamp = now.toISOString();
  await m.createQueryBuilder().insert().into(NotebookRow).values({ tenantId, createdAt: stamp, updatedAt: stamp }).orIgnore().execute();
  return m.findOneByOrFail(NotebookRow, { tenantId });
}

/** The notebook's entity tag (it changes with every write: see recordChange). */
export const notebookTag = (row: NotebookRow): string => rowTag('notebook', row.tenantId, row);

/** Records a write of the notebook's cells on the notebook: `updated_at` and the next revision. */
async function recordChange(m: AppDbManager, row: NotebookRow, now: Date): Promise<void> {
  await m.update(NotebookRow, { tenantId: row.tenantId }, nextRevision(row, now));
}

/** Checks `If-Match` against the notebook (inside the write unit, after its lock): 412 when it does not hold. */
function assertCurrent(row: NotebookRow, precondition: Precondition | undefined): void {
  assertPrecondition(precondition, `the notebook of ${row.tenantId}`, notebookTag(row));
}

async function taggedNotebook(m: AppDbManager, row: NotebookRow): Promise<TaggedNotebook> {
  return { notebook: await toApiNotebook(m, row), etag: notebookTag(row) };
}

/** The tenants' notebooks on the app database. */
export class AppDbNotebooks implements Notebooks {
  constructor(
    private readonly documents: DocumentWrites,
    private readonly rules: CellRules,
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
    const existing = await this.documents.read(async (m) => {
      const row = await m.findOneBy(NotebookRow, { tenantId });
      return row === null ? null : read(m, row);
    });
    if (existing !== null) return existing;
    return this.documents.write(notebookOf(tenantId), async (m, now) => read(m, await ensureNotebook(m, tenantId, now)));
  }

  /** Appends a cell (400 when it breaks the cell rules); the updated notebook and the new cell's ID. */
  async addCell(
    tenantId: string,
    request: { cell: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<TaggedNotebook & { cellId: string }> {
    assertNewCell(this.rules, request.cell, request.author);
    return this.change<{ cellId: string }, never>(tenantId, precondition, async (m, now) => {
      const row = await appendCell(m, notebookOf(tenantId), request.cell, request.author, now);
      return { cellId: row.cellId };
    });
  }

  /** Merges `updates` into a cell (400 when the result breaks the cell rules); the updated notebook, or missing. */
  updateCell(
    tenantId: string,
    cellId: string,
    change: { updates: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<TaggedNotebook | Missing<'cell'>> {
    return this.change<object, Missing<'cell'>>(tenantId, precondition, async (m, now) =>
      (await updateCell(m, notebookOf(tenantId), cellId, change, this.rules, now)) === null ? { missing: 'cell' } : {},
    );
  }

  /** Deletes a cell; the updated notebook, or missing. */
  deleteCell(tenantId: string, cellId: string, precondition?: Precondition): Promise<TaggedNotebook | Missing<'cell'>> {
    return this.change<object, Missing<'cell'>>(tenantId, precondition, async (m) => ((await deleteCell(m, notebookOf(tenantId), cellId)) ? {} : { missing: 'cell' }));
  }

  /** Appends a reply to a discussion cell; the updated notebook, or why not. */
  addReply(tenantId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<TaggedNotebook | CellMiss> {
    return this.change<object, CellMiss>(tenantId, precondition, async (m, now) => (await addReply(m, notebookOf(tenantId), cellId, reply, now)) ?? {});
  }

  /**
   * One write of the notebook's cells: creates the notebook when missing, checks `precondition`, runs `work` and,
   * unless it answers a miss, records the change; the updated notebook with what `work` answered.
   */
  private change<T extends object, Miss extends CellMiss = CellMiss>(
    tenantId: string,
    precondition: Precondition | undefined,
    work: (m: AppDbManager, now: Date) => Promise<T | Miss>,
  ): Promise<(TaggedNotebook & T) | Miss> {
    return this.documents.write(notebookOf(tenantId), async (m, now) => {
      const notebook = await ensureNotebook(m, tenantId, now);
      assertCurrent(notebook, precondition);
      const outcome = await work(m, now);
      if (isMissing(outcome)) return outcome;
      await recordChange(m, notebook, now);
      return { ...(await taggedNotebook(m, notebook)), ...outcome };
    });
  }
}
