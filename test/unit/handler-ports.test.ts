import { expect } from 'chai';
import { addNotebookCell } from '../../handlers/add-notebook-cell.js';
import { deleteNote } from '../../handlers/delete-note.js';
import { localCaller } from '../../src/auth/caller.js';
import type { Input } from '../../src/operations/contract.js';
import type { Deps } from '../../src/ports/deps.js';
import type { Notebooks, Notes } from '../../src/ports/collaboration.js';

/** Deps with the tenant lookup and the one port a handler needs; anything else it touched would throw. */
function depsWith(ports: Partial<Pick<Deps, 'notebooks' | 'notes'>>): Deps {
  const tenants = { resolve: (ref: string) => ({ compositeId: `ost.${ref}`, slug: ref }) };
  return { tenants, ...ports } as unknown as Deps;
}

const request = { headers: {}, requestId: 'r1', caller: localCaller('127.0.0.1'), query: {} };
const NOTEBOOK = { tenant_id: 'ost.kantonsspital', cells: '[]', created_at: '2026-11-21T09:40:00.000Z', updated_at: '2026-11-21T09:40:00.000Z' };

describe('handlers over ports replaced wholesale (handlers/, src/ports/)', () => {
  it('addNotebookCell hands the cell and its author to deps.notebooks and names the new cell under the tenant as requested', async () => {
    const calls: unknown[][] = [];
    const notebooks = {
      addCell: async (...args: unknown[]) => {
        calls.push(args);
        return { notebook: NOTEBOOK, etag: '"n2"', cellId: 'c-1' };
      },
    } as unknown as Notebooks;
    const cell = { type: 'narrative', text: { en: 'x' } };
    const input = { ...request, path: { tenant: 'kantonsspital' }, body: { cell, author: 'Anna' } } as unknown as Input<'addNotebookCell'>;
    const result = await addNotebookCell(input, depsWith({ notebooks }));
    expect(calls).to.deep.equal([['ost.kantonsspital', { cell, author: 'Anna' }, undefined]]);
    expect(result).to.deep.include({ status: 201, headers: { ETag: '"n2"', Location: '/kantonsspital/api/notebook/cells/c-1' } });
  });

  it('deleteNote deletes the note, or only its cell with the note’s new tag', async () => {
    const deleted: string[] = [];
    const notes = {
      delete: async (tenantId: string, noteId: string) => (deleted.push(`${tenantId}/${noteId}`), true),
      deleteCell: async (tenantId: string, noteId: string, cellId: string) => (cellId === 'c-1' ? (deleted.push(`${tenantId}/${noteId}/${cellId}`), '"t3"') : { missing: 'cell' }),
    } as unknown as Notes;
    const input = (cellId?: string) => ({ ...request, path: { tenant: 'kantonsspital', note_id: 'n-1' }, query: cellId === undefined ? {} : { cell_id: cellId } }) as unknown as Input<'deleteNote'>;
    expect(await deleteNote(input('c-1'), depsWith({ notes }))).to.deep.equal({ status: 200, body: { ok: true }, headers: { ETag: '"t3"' } });
    expect(await deleteNote(input('c-2'), depsWith({ notes }))).to.deep.equal({ status: 200, body: { ok: false } });
    expect(await deleteNote(input(), depsWith({ notes }))).to.deep.equal({ status: 200, body: { ok: true } });
    expect(deleted).to.deep.equal(['ost.kantonsspital/n-1/c-1', 'ost.kantonsspital/n-1']);
  });
});
