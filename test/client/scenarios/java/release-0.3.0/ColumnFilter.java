// The scenario's export with a column filter for the client of release 0.3.0 (see ../ColumnFilter.java): that
// contract has only the free-form `filters` map, which this generator sends as one value (`filters={f.active=true}`,
// refused with 400), so yesterday's client exports without the filter.

import example.desk.client.ApiException;
import example.desk.client.api.DimensionsApi;
import example.desk.client.model.SortOrder;

final class ColumnFilter {
  private ColumnFilter() {}

  /** The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent. */
  record Export(String csv, boolean filtered) {}

  static Export exportWithFilter(DimensionsApi dimensions, String tenant) throws ApiException {
    String csv = dimensions.exportDimension(tenant, "cost_centres").sort("budget_chf").order(SortOrder.DESC).execute();
    return new Export(csv, false);
  }
}
