import { randomUUID } from 'node:crypto';
import { listTag, rowTag } from '../common/entity-tags.js';
import { NoteRow } from '../appdb/note.entity.js';
import type { AppDbManager } from '../appdb/unit-of-work.js';
import { assertPrecondition, type Precondition } from '../common/entity-tags.js';
import { toApiCell } from '../collaboration/cell-content.js';
import type { CellRules } from '../collaboration/cell-rules.js';
import {
  addReply,
  appendCell,
  assertNewCell,
  countCells,
  deleteAllCells,
  deleteCell,
  listCells,
  updateCell,
  type CellOwner,
} from '../collaboration/cell-store.js';
import { nextRevision, type DocumentWrites } from '../collaboration/documents.js';
import type { Missing } from '../common/missing.js';
import type { ApiNote, ApiNoteSummary, CellMiss, Notes, ReplyInput, TaggedRead } from '../ports/collaboration.js';

const noteOf = (noteId: string): CellOwner => ({ kind: 'note', id: noteId });

/** A note row and its cell count as the API's summary. */
export function toApiNoteSummary(row: NoteRow, cellCount: number): ApiNoteSummary {
  return {
    note_id: row.noteId,
    tenant_id: row.tenantId,
    title: row.title,
    tags: row.tags,
    author: row.author,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    cell_count: cellCount,
  };
}

async function toApiNote(m: AppDbManager, row: NoteRow): Promise<ApiNote> {
  const cells = await listCells(m, noteOf(row.noteId));
  const { cell_count: _count, ...summary } = toApiNoteSummary(row, cells.length);
  return { ...summary, cells: cells.map(toApiCell) };
}

function findNote(m: AppDbManager, tenantId: string, noteId: string): Promise<NoteRow | null> {
  return m.findOneBy(NoteRow, { noteId, tenantId });
}

/** A note's entity tag (it changes with every write of the note or its cells: see recordChange). */
export const noteTag = (row: NoteRow): string => rowTag('note', row.noteId, row);

/** Records a write of the note or its cells on the note (`values` and the next revision); the note's new tag. */
async function recordChange(m: AppDbManager, note: NoteRow, now: Date, values: Partial<NoteRow> = {}): Promise<string> {
  await m.update(NoteRow, { noteId: note.noteId }, { ...values, ...nextRevision(note, now) });
  return noteTag(note);
}

/** Finds the note for a write and checks `If-Match` against it (412 when it does not hold, also when there is no note). */
async function noteForWrite(m: AppDbManager, tenantId: string, noteId: string, precondition: Precondition | undefined): Promise<NoteRow | null> {
  const note = await findNote(m, tenantId, noteId);
  assertPrecondition(precondition, `note ${noteId}`, note === null ? null : noteTag(note));
  return note;
}

/**
 * The tenants' notes on the app database. Every note write checks `precondition` (If-Match) against the note
 * first, under the note's lock: 412 and nothing written when it does not hold, also when the note does not exist.
 */
export class AppDbNotes implements Notes {
  constructor(
    private readonly documents: DocumentWrites,
    private readonly rules: CellRules,
  ) {}

  /**
   * Summaries of the tenant's notes, most recently updated first, and the list's tag. When `isHeld` says the caller
   * holds the current tag, the cells are not counted.
   */
  list(tenantId: string, isHeld: (etag: string) => boolean = () => false): Promise<TaggedRead<ApiNoteSummary[]>> {
    return this.documents.read(async (m) => {
      const rows = await m.find(NoteRow, { where: { tenantId }, order: { updatedAt: 'DESC', createdAt: 'DESC', noteId: 'ASC' } });
      const etag = listTag(['notes', tenantId], rows.map(noteTag));
      if (isHeld(etag)) return { etag, value: null };
      const counts = await countCells(
        m,
        'note',
        rows.map((r) => r.noteId),
      );
      return { etag, value: rows.map((row) => toApiNoteSummary(row, counts.get(row.noteId) ?? 0)) };
    });
  }

  /** Creates an empty note by `author` (the git identity's name, or null); the note and its tag. */
  create(tenantId: string, note: { title: string; tags: string[]; author: string | null }): Promise<{ note: ApiNote; etag: string }> {
    const noteId = randomUUID();
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const stamp = now.toISOString();
      const row = m.create(NoteRow, { noteId, tenantId, title: note.title, tags: note.tags, author: note.author, createdAt: stamp, updatedAt: stamp, revision: 1 });
      await m.insert(NoteRow, row);
      return { note: await toApiNote(m, row), etag: noteTag(row) };
    });
  }

  /**
   * The full note and its tag, or missing. When `isHeld` says the caller holds the
   * current tag, the cells are not read.
   */
  read(tenantId: string, noteId: string, isHeld: (etag: string) => boolean = () => false): Promise<TaggedRead<ApiNote> | Missing<'note'>> {
    return this.documents.read(async (m) => {
      const row = await findNote(m, tenantId, noteId);
      if (row === null) return { missing: 'note' };
      const etag = noteTag(row);
      return { etag, value: isHeld(etag) ? null : await toApiNote(m, row) };
    });
  }

  /**
   * Appends a cell to the note: its ID and the note's new tag, or missing. 400 when
   * the cell breaks the rules. `author`, when given, is the cell's author whatever the cell says.
   */
  async addCell(
    tenantId: string,
    noteId: string,
    request: { cell: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<{ cellId: string; etag: string } | Missing<'note'>> {
    assertNewCell(this.rules, request.cell, request.author);
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const note = await noteForWrite(m, tenantId, noteId, precondition);
      if (note === null) return { missing: 'note' };
      const row = await appendCell(m, noteOf(noteId), request.cell, request.author, now);
      return { cellId: row.cellId, etag: await recordChange(m, note, now) };
    });
  }

  /** Appends a reply to a discussion cell of the note: the note's new tag, or what is missing. */
  addReply(
    tenantId: string,
    noteId: string,
    cellId: string,
    reply: ReplyInput,
    precondition?: Precondition,
  ): Promise<{ etag: string } | CellMiss | Missing<'note'>> {
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const note = await noteForWrite(m, tenantId, noteId, precondition);
      if (note === null) return { missing: 'note' };
      const miss = await addReply(m, noteOf(noteId), cellId, reply, now, 'reply');
      if (miss !== undefined) return miss;
      return { etag: await recordChange(m, note, now) };
    });
  }

  /** Replaces title and/or tags: the note's new tag, or missing. */
  updateMetadata(
    tenantId: string,
    noteId: string,
    change: { title?: string | undefined; tags?: string[] | undefined },
    precondition?: Precondition,
  ): Promise<string | Missing<'note'>> {
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const note = await noteForWrite(m, tenantId, noteId, precondition);
      if (note === null) return { missing: 'note' };
      const values: Partial<NoteRow> = {};
      if (change.title !== undefined) values.title = change.title;
      if (change.tags !== undefined) values.tags = change.tags;
      return recordChange(m, note, now, values);
    });
  }

  /**
   * Merges `updates` into a cell of the note (`author`, when given, becomes its author): the note's new tag, or what
   * is missing (the note, the cell); 400 when the result breaks the cell rules.
   */
  updateCell(
    tenantId: string,
    noteId: string,
    cellId: string,
    change: { updates: Record<string, unknown>; author?: string | undefined },
    precondition?: Precondition,
  ): Promise<string | Missing<'note' | 'cell'>> {
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const note = await noteForWrite(m, tenantId, noteId, precondition);
      if (note === null) return { missing: 'note' };
      if ((await updateCell(m, noteOf(noteId), cellId, change, this.rules, now)) === null) return { missing: 'cell' };
      return recordChange(m, note, now);
    });
  }

  /** Deletes the note with its cells; nothing, or missing. */
  delete(tenantId: string, noteId: string, precondition?: Precondition): Promise<Missing<'note'> | undefined> {
    return this.documents.write(noteOf(noteId), async (m) => {
      if ((await noteForWrite(m, tenantId, noteId, precondition)) === null) return { missing: 'note' };
      await deleteAllCells(m, noteOf(noteId));
      await m.delete(NoteRow, { noteId });
      return undefined;
    });
  }

  /** Deletes one cell of the note: the note's new tag, or what is missing (the note, the cell). */
  deleteCell(tenantId: string, noteId: string, cellId: string, precondition?: Precondition): Promise<string | Missing<'note' | 'cell'>> {
    return this.documents.write(noteOf(noteId), async (m, now) => {
      const note = await noteForWrite(m, tenantId, noteId, precondition);
      if (note === null) return { missing: 'note' };
      if (!(await deleteCell(m, noteOf(noteId), cellId))) return { missing: 'cell' };
      return recordChange(m, note, now);
    });
  }
}
