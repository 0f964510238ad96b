// The scenario's export with a column filter, as this contract's client sends it: the list form `filter`
// (`<column>:<value>`). release-0.3.0/ColumnFilter.java is the same step for the client of release 0.3.0, which the
// test puts in this file's place when it runs yesterday's client.

import example.desk.client.ApiException;
import example.desk.client.api.DimensionsApi;
import example.desk.client.model.SortOrder;
import java.util.List;

final class ColumnFilter {
  private ColumnFilter() {}

  /** The CSV export of cost_centres sorted by budget, and whether the filter active=true was sent. */
  record Export(String csv, boolean filtered) {}

  static Export exportWithFilter(DimensionsApi dimensions, String tenant) throws ApiException {
    String csv = dimensions.exportDimension(tenant, "cost_centres").sort("budget_chf").order(SortOrder.DESC).filter(List.of("active:true")).execute();
    return new Export(csv, true);
  }
}
