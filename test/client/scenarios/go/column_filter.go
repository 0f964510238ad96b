// The scenario's export with a column filter, as this contract's client sends it: the list form `filter`
// (`<column>:<value>`). release-0.3.0/column_filter.go is the same step for the client of release 0.3.0, which the
// test puts in this file's place when it runs yesterday's client.
package main

import (
	"context"

	desk "example.com/desk/deskclient"
)

// exportWithFilter returns the CSV export of cost_centres sorted by budget, and whether the filter active=true was sent.
func exportWithFilter(ctx context.Context, client *desk.APIClient, tenant string) (string, bool) {
	csv := answerOf(client.DimensionsAPI.ExportDimension(ctx, tenant, "cost_centres").Sort("budget_chf").Order(desk.SORTORDER_DESC).Filter([]string{"active:true"}).Execute()).of("exportDimension")
	return csv, true
}
