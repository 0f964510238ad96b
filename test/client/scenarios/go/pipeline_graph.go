// The scenario's pipeline graph as HTML, as this contract's client reads it: GetPipelineGraphHtml, typed as text.
// release-0.3.0/pipeline_graph.go is the same step for the client of release 0.3.0, which the test puts in this
// file's place when it runs yesterday's client.
package main

import (
	"context"

	desk "example.com/desk/deskclient"
)

// readGraphHtml returns the tenant's pipeline graph as HTML text, and false when this client has no operation that reads it.
func readGraphHtml(ctx context.Context, client *desk.APIClient, tenant string) (string, bool) {
	html := answerOf(client.ContentAPI.GetPipelineGraphHtml(ctx, tenant).Execute()).of("getPipelineGraphHtml")
	return html, true
}
