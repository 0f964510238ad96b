// The scenario's pipeline graph as HTML for the client of release 0.3.0 (see ../pipeline_graph.go): that contract
// reaches the HTML only through GetPipelineArtifact, whose media type follows `artifact_key`; this generator has no
// type for that answer (`undefined response type`), so yesterday's client does not read the graph.
package main

import (
	"context"

	desk "example.com/desk/deskclient"
)

// readGraphHtml returns the tenant's pipeline graph as HTML text, and false when this client has no operation that reads it.
func readGraphHtml(_ context.Context, _ *desk.APIClient, _ string) (string, bool) {
	return "", false
}
