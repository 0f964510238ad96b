import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { components } from '../../generated/openapi.js';
import { NoteRow } from '../appdb/note.entity.js';
import { readUnit, writeUnit, type AppDbManager, type LockKey } from '../appdb/unit-of-work.js';
import { toApiCell } from '../notebooks/cell-content.js';
import type { CellRules } from '../notebooks/cell-rules.js';
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
  type ReplyInput,
  type ReplyOutcome,
} from '../notebooks/cell-store.js';

/** A full note as the API returns it. */
export type ApiNote = components['schemas']['Note'];
/** A note without cells, with `cell_count`. */
export type ApiNoteSummary = components['schemas']['NoteSummary'];

const ownerOf = (noteId: string): CellOwner => ({ kind: 'note', id: noteId });
/** Every write to a note (its metadata or its cells) waits for the ones before it (see unit-of-work.ts). */
const lockOf = (noteId: string): LockKey => `note:${noteId}`;

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
  const cells = await listCells(m, ownerOf(row.noteId));
  const { cell_count: _count, ...summary } = toApiNoteSummary(row, cells.length);
  return { ...summary, cells: cells.map(toApiCell) };
}

function findNote(m: AppDbManager, tenantId: string, noteId: string): Promise<NoteRow | null> {
  return m.findOneBy(NoteRow, { noteId, tenantId });
}

async function touch(m: AppDbManager, note: NoteRow, now: Date): Promise<void> {
  await m.update(NoteRow, { noteId: note.noteId }, { updatedAt: now.toISOString() });
}

/** Summaries of the tenant's notes, most recently updated first. */
export function listNotes(dataSource: DataSource, tenantId: string): Promise<ApiNoteSummary[]> {
  return readUnit(dataSource, async (m) => {
    const rows = await m.find(NoteRow, { where: { tenantId }, order: { updatedAt: 'DESC', createdAt: 'DESC', noteId: 'ASC' } });
    const counts = await countCells(
      m,
      'note',
      rows.map((r) => r.noteId),
    );
    return rows.map((row) => toApiNoteSummary(row, counts.get(row.noteId) ?? 0));
  });
}

/** Creates an empty note by `author` (the git identity's name, or null). */
export function createNote(dataSource: DataSource, tenantId: string, note: { title: string; tags: string[]; author: string | null }): Promise<ApiNote> {
  const noteId = randomUUID();
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const stamp = new Date().toISOString();
    const row = m.create(NoteRow, { noteId, tenantId, title: note.title, tags: note.tags, author: note.author, createdAt: stamp, updatedAt: stamp });
    await m.insert(NoteRow, row);
    return toApiNote(m, row);
  });
}

/** The full note, or null when the tenant has no such note. */
export function readNote(dataSource: DataSource, tenantId: string, noteId: string): Promise<ApiNote | null> {
  return readUnit(dataSource, async (m) => {
    const row = await findNote(m, tenantId, noteId);
    return row === null ? null : toApiNote(m, row);
  });
}

/**
 * Appends a cell to the note: its ID, or null when the tenant has no such note. 400 when the cell breaks the rules.
 * `author`, when given, is the cell's author whatever the cell says.
 */
export async function appendNoteCell(
  dataSource: DataSource,
  rules: CellRules,
  tenantId: string,
  noteId: string,
  cell: Record<string, unknown>,
  author?: string,
): Promise<string | null> {
  assertNewCell(rules, cell, author);
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const note = await findNote(m, tenantId, noteId);
    if (note === null) return null;
    const now = new Date();
    const row = await appendCell(m, ownerOf(noteId), cell, author, now);
    await touch(m, note, now);
    return row.cellId;
  });
}

/** Appends a reply to a discussion cell of the note. */
export function replyInNote(dataSource: DataSource, tenantId: string, noteId: string, cellId: string, reply: ReplyInput): Promise<ReplyOutcome | 'no-note'> {
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const note = await findNote(m, tenantId, noteId);
    if (note === null) return 'no-note';
    const now = new Date();
    const outcome = await addReply(m, ownerOf(noteId), cellId, reply, now, 'reply');
    if (outcome === 'added') await touch(m, note, now);
    return outcome;
  });
}

/** Replaces title and/or tags; false when the tenant has no such note. */
export function updateNoteMetadata(dataSource: DataSource, tenantId: string, noteId: string, change: { title?: string | undefined; tags?: string[] | undefined }): Promise<boolean> {
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const note = await findNote(m, tenantId, noteId);
    if (note === null) return false;
    const values: Partial<NoteRow> = { updatedAt: new Date().toISOString() };
    if (change.title !== undefined) values.title = change.title;
    if (change.tags !== undefined) values.tags = change.tags;
    await m.update(NoteRow, { noteId }, values);
    return true;
  });
}

/** Merges `updates` into a cell of the note (`author`, when given, becomes its author); false when the note or the cell does not exist. */
export function updateNoteCell(
  dataSource: DataSource,
  rules: CellRules,
  tenantId: string,
  noteId: string,
  cellId: string,
  updates: Record<string, unknown>,
  author?: string,
): Promise<boolean> {
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const note = await findNote(m, tenantId, noteId);
    if (note === null) return false;
    const now = new Date();
    if ((await updateCell(m, ownerOf(noteId), cellId, { updates, author }, rules, now)) === null) return false;
    await touch(m, note, now);
    return true;
  });
}

/** Deletes the note with its cells, or only one cell when `cellId` is given; false when either does not exist. */
export function deleteNote(dataSource: DataSource, tenantId: string, noteId: string, cellId?: string): Promise<boolean> {
  return writeUnit(dataSource, lockOf(noteId), async (m) => {
    const note = await findNote(m, tenantId, noteId);
    if (note === null) return false;
    if (cellId !== undefined) {
      if (!(await deleteCell(m, ownerOf(noteId), cellId))) return false;
      await touch(m, note, new Date());
      return true;
    }
    await deleteAllCells(m, ownerOf(noteId));
    await m.delete(NoteRow, { noteId });
    return true;
  });
}
