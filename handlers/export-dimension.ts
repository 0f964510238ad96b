import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

type ExportQueryName = keyof Input<'exportDimension'>['query'];
/** Query names the contract declares; any other key must be a column filter `f.<column>`. */
const DECLARED_QUERY = ['q', 'sort', 'order', 'filters', 'filter'] as const satisfies readonly ExportQueryName[];

/** GET /{tenant}/dimensions/{entity}/export: the dimension table as streamed CSV. */
export async function exportDimension(input: Input<'exportDimension'>, deps: Deps): Promise<Result<'exportDimension'>> {
  // the raw query: `f.<column>` keys are free-form (the contract's `filters` parameter) and `filter` values name
  // columns too; both are checked against the table
  const started = await deps.exports.start(deps.tenants.resolve(input.path.tenant), input.path.entity, input.query as Readonly<Record<string, unknown>>, DECLARED_QUERY);
  if (isMissing(started)) throw new Problem('not-found', started.missing);
  const headers: Record<string, string> = {
    'Content-Disposition': `attachment; filename="${started.entity}.csv"`,
    'Cache-Control': 'no-store',
  };
  if (started.truncated) headers['X-Export-Truncated'] = 'true';
  // the audit line is written when the stream has closed, with the rows it carried
  return { status: 200, contentType: 'text/csv; charset=utf-8', body: started.csv, headers, auditDetails: { entity: started.entity, rows: () => started.rows, truncated: started.truncated } };
}
