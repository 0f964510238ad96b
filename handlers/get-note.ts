import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { problemResult } from '../src/http/results.js';
import { readNote } from '../src/notes/notes.js';

/** GET /{tenant}/api/notes/{note_id}: the note with its cells; 404 for an unknown note. */
export async function getNote(input: Input<'getNote'>, deps: Deps): Promise<Result<'getNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const note = await readNote(deps.appDb.dataSource, tenant.compositeId, input.path.note_id);
  if (note === null) return problemResult('not-found', `tenant ${tenant.compositeId} has no note ${input.path.note_id}`);
  return { status: 200, body: { note } };
}
