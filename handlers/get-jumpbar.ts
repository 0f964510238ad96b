import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { invalidRequest } from '../src/common/problems.js';
import { summariseFindings } from '../src/search/severity-summary.js';
import { listTenants } from '../src/search/tenant-list.js';
import { searchTenant } from '../src/search/tenant-search.js';
import { foldText } from '../src/search/fold.js';

/** GET /api/jumpbar: search (default), tenant list, or severity summary. */
export async function getJumpbar(input: Input<'getJumpbar'>, deps: Deps): Promise<Result<'getJumpbar'>> {
  const mode = input.query.mode ?? 'search';
  if (mode === 'tenants') return { status: 200, body: { tenants: listTenants(deps.tenants) } };
  const tenant = input.query.tenant;
  if (tenant === undefined) throw invalidRequest([{ in: 'query', name: 'tenant', message: `is required when mode is ${mode}` }]);
  if (mode === 'summary') {
    const summary = await deps.tenants.withKls(tenant, (db) => summariseFindings(db));
    return { status: 200, body: { summary } };
  }
  const q = input.query.q;
  if (q === undefined) throw invalidRequest([{ in: 'query', name: 'q', message: 'is required when mode is search' }]);
  if (foldText(q) === '') throw invalidRequest([{ in: 'query', name: 'q', message: 'must contain a character other than white space' }]);
  if (q.includes('\u0000')) throw invalidRequest([{ in: 'query', name: 'q', message: 'must not contain U+0000 (NUL)' }]);
  // JSON bytes made from hits checked against SearchItem when the index was built (EncodedJson)
  return { status: 200, body: await searchTenant(deps.tenants, deps.searchIndexes, tenant, q) };
}
