import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { call } from './http.js';
import { tempDir } from './server.js';

/** The cells of a notebook response (its `cells` is a JSON string). */
export function cellsOf(body: { notebook: { cells: string } }): Array<Record<string, any>> {
  const cells = JSON.parse(body.notebook.cells) as unknown;
  expect(cells).to.be.an('array');
  return cells as Array<Record<string, any>>;
}

/** Appends a cell to the tenant's notebook (asserting 201) and returns the new cell. */
export async function addNotebookCell(base: string, tenant: string, cell: Record<string, unknown>, author?: string): Promise<Record<string, any>> {
  const res = await call(base, `/${tenant}/api/notebook/cells`, { method: 'POST', json: author === undefined ? { cell } : { cell, author } });
  expect(res.status, res.text).to.equal(201);
  return cellsOf(res.body).at(-1)!;
}

/** Creates a note (asserting 200) and returns it. */
export async function createNote(base: string, tenant: string, title = 'October close review', tags: string[] = ['controlling']): Promise<Record<string, any>> {
  const res = await call(base, `/${tenant}/api/notes`, { method: 'POST', json: { title, tags } });
  expect(res.status, res.text).to.equal(200);
  return res.body.note as Record<string, any>;
}

/** Adds a cell to a note (asserting 200) and returns its ID. */
export async function addNoteCell(base: string, tenant: string, noteId: string, cell: Record<string, unknown>): Promise<string> {
  const res = await call(base, `/${tenant}/api/notes/${noteId}`, { method: 'POST', json: { cell } });
  expect(res.status, res.text).to.equal(200);
  return res.body.cell_id as string;
}

/** Creates a saved view (asserting 200) and returns it. */
export async function createView(base: string, tenant: string, entity = 'cost_centres', name = 'Active cost centres'): Promise<Record<string, any>> {
  const res = await call(base, '/api/views', { method: 'POST', json: { tenant, entity, name, params: { filters: { active: true } } } });
  expect(res.status, res.text).to.equal(200);
  return res.body.view as Record<string, any>;
}

/** An ID no resource has. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** A body larger than the 1 MiB limit. */
export const oversizedBody = (): string => JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 1) });

/** A GIT_WORKSPACES_DIR holding a work tree for `ost.kantonsspital` whose `user.name` is `name`. */
export function gitWorkspaces(name: string): { dir: string; remove: () => void } {
  const workspaces = tempDir('ads-git-ws-');
  const tree = path.join(workspaces.dir, 'ost.kantonsspital');
  execFileSync('git', ['init', '-q', tree]);
  execFileSync('git', ['-C', tree, 'config', 'user.name', name]);
  return workspaces;
}
