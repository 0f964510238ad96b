import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { listNotes as listNoteSummaries } from '../src/notes/notes.js';

/** GET /{tenant}/api/notes: summaries of the tenant's notes, most recently updated first. */
export async function listNotes(input: Input<'listNotes'>, deps: Deps): Promise<Result<'listNotes'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const notes = await listNoteSummaries(deps.appDb.dataSource, tenant.compositeId);
  return { status: 200, body: { notes } };
}
