import type { Deps } from '../src/deps.js';
import type { Input, Result } from '../src/http/contract.js';
import { invalidRequest } from '../src/http/errors.js';
import { problemResult } from '../src/http/results.js';
import { summariseFindings } from '../src/search/severity-summary.js';
import { listTenants } from '../src/search/tenant-list.js';

/** GET /api/jumpbar: tenant list, severity summary, or (not built yet) search. */
export async function getJumpbar(input: Input<'getJumpbar'>, deps: Deps): Promise<Result<'getJumpbar'>> {
  const mode = input.query.mode ?? 'search';
  if (mode === 'tenants') return { status: 200, body: { tenants: listTenants(deps.tenants) } };
  const tenant = input.query.tenant;
  if (tenant === undefined) throw invalidRequest([{ in: 'query', name: 'tenant', message: `is required when mode is ${mode}` }]);
  if (mode === 'summary') {
    const summary = await deps.tenants.withKls(tenant, (db) => summariseFindings(db));
    return { status: 200, body: { summary } };
  }
  if (input.query.q === undefined) throw invalidRequest([{ in: 'query', name: 'q', message: 'is required when mode is search' }]);
  deps.tenants.resolve(tenant, { in: 'query', name: 'tenant' });
  return problemResult('not-implemented', 'jumpbar mode=search is not implemented in this build');
}
