// The scenario's export with a column filter for the client of release 0.3.0 (see ../column_filter.go): that
// contract has only the free-form `filters` map, which this generator sends as `filters[f.active]=true` (refused
// with 400), so yesterday's client exports without the filter.
package main

import (
	"context"

	desk "example.com/desk/deskclient"
)

// exportWithFilter returns the CSV export of cost_centres sorted by budget, and whether the filter active=true was sent.
func exportWithFilter(ctx context.Context, client *desk.APIClient, tenant string) (string, bool) {
	csv := answerOf(client.DimensionsAPI.ExportDimension(ctx, tenant, "cost_centres").Sort("budget_chf").Order(desk.SORTORDER_DESC).Execute()).of("exportDimension")
	return csv, false
}
