// The scenario's export with a column filter for the client of release 0.3.0 (see ../column-filter.ts): that
// contract has only the free-form `filters` object, which typescript-fetch sends as `f.active=true`.
import type { DimensionsApi } from '../../clients/typescript-fetch/dist/index.js';

/** The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent. */
export async function exportWithFilter(dimensions: DimensionsApi, tenant: string): Promise<{ csv: string; filtered: boolean }> {
  const csv = await dimensions.exportDimension({ tenant, entity: 'cost_centres', sort: 'budget_chf', order: 'desc', filters: { 'f.active': 'true' } });
  return { csv, filtered: true };
}
