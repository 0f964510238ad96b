// The scenario's export with a column filter, as this contract's client sends it: the list form `filter`
// (`<column>:<value>`). release-0.3.0/column-filter.ts is the same step for the client of release 0.3.0, which the
// test puts in this file's place when it runs yesterday's client.
import type { DimensionsApi } from '../../clients/typescript-fetch/dist/index.js';

/** The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent. */
export async function exportWithFilter(dimensions: DimensionsApi, tenant: string): Promise<{ csv: string; filtered: boolean }> {
  const csv = await dimensions.exportDimension({ tenant, entity: 'cost_centres', sort: 'budget_chf', order: 'desc', filter: ['active:true'] });
  return { csv, filtered: true };
}
