// The client scenario in Go, through the package oapi-codegen made from the contract (oapi-codegen.yaml: models and
// client, into deskapi/). test/client/other-generators.test.ts copies this folder beside the contract, generates the
// package, vets and builds both, and runs the scenario with the server and the expected bytes in the environment:
//
//	DESK_URL, DESK_TOKEN (empty: no sign-in), DESK_TENANT, DESK_AMBIGUOUS_TENANT, DESK_REPORT_KEY, DESK_LOGO_FILE,
//	DESK_REPORT_FILE, DESK_GRAPH_FILE, DESK_CONTRACT_FILE, DESK_MONEY (the finding amount as the server writes it).
//
// Each step prints `ok <step>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends the
// run with `FAIL oapi-codegen <step>: <answer>` and exit code 1.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	desk "example.com/desk/scenario/deskapi"
	"github.com/google/uuid"
)

type scenarioFailure struct{ message string }

func check(condition bool, step string, answer any) {
	if !condition {
		panic(scenarioFailure{fmt.Sprintf("%s: %+v", step, answer)})
	}
}

// must returns the parsed answer of a call, or ends the scenario naming the step and the error.
func must[T any](answer T, err error) func(step string) T {
	return func(step string) T {
		check(err == nil, step, err)
		return answer
	}
}

// expectStatus ends the scenario unless the answer has the status, showing its body otherwise.
func expectStatus(step string, response *http.Response, body []byte, status int) {
	check(response.StatusCode == status, step, fmt.Sprintf("HTTP %d %s", response.StatusCode, body))
}

func report(step string) { fmt.Println("ok " + step) }

func reportProblem(operation string, problem *desk.Problem) {
	check(problem != nil, operation, "no problem read")
	fields, _ := json.Marshal(map[string]any{"type": problem.Type, "title": problem.Title, "status": problem.Status, "detail": problem.Detail})
	fmt.Printf("problem %s %s\n", operation, fields)
}

func readFile(step string, name string) []byte {
	content, err := os.ReadFile(name)
	check(err == nil, step, err)
	return content
}

// acceptText asks for the contract as text/plain: the generated parser decodes an answer whose media type names YAML
// into the schema's string, which fails (docs/clients.md).
func acceptText(_ context.Context, request *http.Request) error {
	request.Header.Set("Accept", "text/plain")
	return nil
}

// csvRows splits an export into its header and rows (the demo's values hold no commas or quotes).
func csvRows(step string, csv []byte) ([]string, [][]string) {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(string(csv), "\r\n"), "\r\n") {
		rows = append(rows, strings.Split(line, ","))
	}
	check(len(rows) > 1, step, string(csv))
	return rows[0], rows[1:]
}

func run(env func(string) string) {
	ctx := context.Background()
	tenant := env("DESK_TENANT")
	token := env("DESK_TOKEN")
	client, err := desk.NewClientWithResponses(env("DESK_URL"), desk.WithRequestEditorFn(func(_ context.Context, request *http.Request) error {
		if token != "" {
			request.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	}))
	check(err == nil, "NewClientWithResponses", err)

	// health: a oneOf with a discriminator (mode)
	health := must(client.GetHealthWithResponse(ctx))("getHealth")
	expectStatus("getHealth", health.HTTPResponse, health.Body, 200)
	local, err := health.JSON200.AsHealthLocal()
	check(err == nil && local.Status == desk.HealthLocalStatusOk, "getHealth", string(health.Body))
	report("getHealth")

	// the jumpbar's answer is a oneOf without a discriminator: the caller reads it as the member its mode answers
	mode := desk.Tenants
	tenants := must(client.GetJumpbarWithResponse(ctx, &desk.GetJumpbarParams{Mode: &mode}))("getJumpbar tenants")
	expectStatus("getJumpbar tenants", tenants.HTTPResponse, tenants.Body, 200)
	list, err := tenants.JSON200.AsTenantList()
	check(err == nil && slices.ContainsFunc(list.Tenants, func(t desk.TenantListItem) bool { return strings.HasSuffix(t.Id, "."+tenant) }), "getJumpbar tenants", string(tenants.Body))
	report("getJumpbar tenants")

	mode, q := desk.Search, "fallpauschale"
	search := must(client.GetJumpbarWithResponse(ctx, &desk.GetJumpbarParams{Mode: &mode, Tenant: &tenant, Q: &q}))("getJumpbar search")
	expectStatus("getJumpbar search", search.HTTPResponse, search.Body, 200)
	hits, err := search.JSON200.AsSearchResults()
	check(err == nil && len(hits.Probes)+len(hits.Glossary)+len(hits.Entities)+len(hits.Dimensions) > 0, "getJumpbar search", string(search.Body))
	report("getJumpbar search")

	mode = desk.Summary
	summary := must(client.GetJumpbarWithResponse(ctx, &desk.GetJumpbarParams{Mode: &mode, Tenant: &tenant}))("getJumpbar summary")
	expectStatus("getJumpbar summary", summary.HTTPResponse, summary.Body, 200)
	severity, err := summary.JSON200.AsSeveritySummaryResponse()
	money := strconv.FormatFloat(severity.Summary.Money, 'f', -1, 64)
	check(err == nil && money == env("DESK_MONEY"), "getJumpbar summary", fmt.Sprintf("money read as %s, sent as %s", money, env("DESK_MONEY")))
	report("getJumpbar summary")

	// a slug in two packs: 409, read as the contract's problem
	ambiguous := must(client.ListViewsWithResponse(ctx, &desk.ListViewsParams{Tenant: env("DESK_AMBIGUOUS_TENANT")}))("listViews 409")
	expectStatus("listViews 409", ambiguous.HTTPResponse, ambiguous.Body, 409)
	reportProblem("listViews", ambiguous.ApplicationproblemJSON409)
	report("listViews 409")

	// a saved view: its ETag, a rename with If-Match, the same rename with the old tag (412), then deleted
	name := "Scenario oapi-codegen"
	created := must(client.CreateViewWithResponse(ctx, desk.CreateViewRequest{Tenant: tenant, Entity: "cost_centres", Name: name, Params: map[string]any{"sort": "budget_chf"}}))("createView")
	expectStatus("createView", created.HTTPResponse, created.Body, 200)
	check(created.JSON200.View.Name == name && created.Headers200 != nil && created.Headers200.ETag != nil, "createView", string(created.Body))
	viewID, viewTag := created.JSON200.View.ViewId, *created.Headers200.ETag
	report("createView")
	renamed := name + ", renamed"
	update := desk.UpdateViewRequest{Tenant: tenant, ViewId: viewID, Name: &renamed}
	updated := must(client.UpdateViewWithResponse(ctx, &desk.UpdateViewParams{IfMatch: &viewTag}, update))("updateView")
	expectStatus("updateView", updated.HTTPResponse, updated.Body, 200)
	check(updated.JSON200.Ok && updated.Headers200 != nil && updated.Headers200.ETag != nil && *updated.Headers200.ETag != viewTag, "updateView", updated.Headers200)
	report("updateView")
	stale := must(client.UpdateViewWithResponse(ctx, &desk.UpdateViewParams{IfMatch: &viewTag}, update))("updateView 412")
	expectStatus("updateView 412", stale.HTTPResponse, stale.Body, 412)
	reportProblem("updateView", stale.ApplicationproblemJSON412)
	report("updateView 412")
	deleted := must(client.DeleteViewWithResponse(ctx, &desk.DeleteViewParams{Tenant: tenant, ViewId: viewID, IfMatch: updated.Headers200.ETag}))("deleteView")
	expectStatus("deleteView", deleted.HTTPResponse, deleted.Body, 200)
	report("deleteView")

	// a notebook cell: added (201, ETag, Location), changed with If-Match, changed again with the old tag (412)
	var cell desk.CellInput
	check(cell.FromDiscussionCellInput(desk.DiscussionCellInput{Type: desk.DiscussionCellInputTypeDiscussion, Title: name}) == nil, "addNotebookCell", "cell")
	added := must(client.AddNotebookCellWithResponse(ctx, tenant, &desk.AddNotebookCellParams{}, desk.AddCellRequest{Cell: cell}))("addNotebookCell")
	expectStatus("addNotebookCell", added.HTTPResponse, added.Body, 201)
	check(added.Headers201 != nil && added.Headers201.ETag != nil && added.Headers201.Location != nil, "addNotebookCell", added.Headers201)
	location, notebookTag := *added.Headers201.Location, *added.Headers201.ETag
	cellID, err := uuid.Parse(location[strings.LastIndex(location, "/")+1:])
	check(err == nil && strings.Contains(added.JSON201.Notebook.Cells, `"`+cellID.String()+`"`), "addNotebookCell", location)
	report("addNotebookCell")
	change := desk.UpdateCellRequest{Updates: map[string]any{"title": name + ", renamed"}}
	changed := must(client.UpdateNotebookCellWithResponse(ctx, tenant, cellID, &desk.UpdateNotebookCellParams{IfMatch: &notebookTag}, change))("updateNotebookCell")
	expectStatus("updateNotebookCell", changed.HTTPResponse, changed.Body, 200)
	check(strings.Contains(changed.JSON200.Notebook.Cells, name+", renamed") && changed.Headers200.ETag != nil && *changed.Headers200.ETag != notebookTag, "updateNotebookCell", string(changed.Body))
	report("updateNotebookCell")
	refused := must(client.UpdateNotebookCellWithResponse(ctx, tenant, cellID, &desk.UpdateNotebookCellParams{IfMatch: &notebookTag}, change))("updateNotebookCell 412")
	expectStatus("updateNotebookCell 412", refused.HTTPResponse, refused.Body, 412)
	reportProblem("updateNotebookCell", refused.ApplicationproblemJSON412)
	report("updateNotebookCell 412")

	// a CSV export sorted by budget, unfiltered and with the column filter in both forms
	sort, order := "budget_chf", desk.Desc
	all := must(client.ExportDimensionWithResponse(ctx, tenant, "cost_centres", &desk.ExportDimensionParams{Sort: &sort, Order: &order}))("exportDimension")
	expectStatus("exportDimension", all.HTTPResponse, all.Body, 200)
	_, allRows := csvRows("exportDimension", all.Body)
	listed := must(client.ExportDimensionWithResponse(ctx, tenant, "cost_centres", &desk.ExportDimensionParams{Sort: &sort, Order: &order, Filter: &[]string{"active:true"}}))("exportDimension filter")
	expectStatus("exportDimension filter", listed.HTTPResponse, listed.Body, 200)
	header, rows := csvRows("exportDimension filter", listed.Body)
	active := slices.Index(header, "active")
	check(active >= 0 && len(rows) < len(allRows) && !slices.ContainsFunc(rows, func(row []string) bool { return row[active] != "1" }), "exportDimension filter", string(listed.Body))
	report("exportDimension filter")
	exploded := must(client.ExportDimensionWithResponse(ctx, tenant, "cost_centres", &desk.ExportDimensionParams{Sort: &sort, Order: &order, Filters: &desk.ExportColumnFilters{"f.active": "true"}}))("exportDimension filters")
	expectStatus("exportDimension filters", exploded.HTTPResponse, exploded.Body, 200)
	check(bytes.Equal(exploded.Body, listed.Body), "exportDimension filters", string(exploded.Body))
	report("exportDimension filters")

	// the HTML graph and the contract as text; the logo and a report as bytes
	graph := must(client.GetPipelineGraphHtmlWithResponse(ctx, tenant))("getPipelineGraphHtml")
	expectStatus("getPipelineGraphHtml", graph.HTTPResponse, graph.Body, 200)
	check(string(graph.Body) == string(readFile("getPipelineGraphHtml", env("DESK_GRAPH_FILE"))), "getPipelineGraphHtml", fmt.Sprintf("%d bytes, not those the server serves", len(graph.Body)))
	report("getPipelineGraphHtml")
	// without the Accept of acceptText the server answers application/yaml, which the parser fails on (docs/clients.md)
	_, yamlErr := client.GetOpenApiYamlWithResponse(ctx)
	check(yamlErr != nil && strings.Contains(yamlErr.Error(), "cannot unmarshal"), "getOpenApiYaml", fmt.Sprintf("read application/yaml (%v): docs/clients.md says it fails", yamlErr))
	contract := must(client.GetOpenApiYamlWithResponse(ctx, acceptText))("getOpenApiYaml")
	expectStatus("getOpenApiYaml", contract.HTTPResponse, contract.Body, 200)
	check(strings.HasPrefix(contract.HTTPResponse.Header.Get("Content-Type"), "text/plain") && contract.Headers200.ETag != nil, "getOpenApiYaml", contract.HTTPResponse.Header)
	check(string(contract.Body) == string(readFile("getOpenApiYaml", env("DESK_CONTRACT_FILE"))), "getOpenApiYaml", fmt.Sprintf("%d bytes, not those the server serves", len(contract.Body)))
	report("getOpenApiYaml")
	logo := must(client.GetTenantLogoWithResponse(ctx, tenant))("getTenantLogo")
	expectStatus("getTenantLogo", logo.HTTPResponse, logo.Body, 200)
	check(bytes.Equal(logo.Body, readFile("getTenantLogo", env("DESK_LOGO_FILE"))), "getTenantLogo", fmt.Sprintf("%d bytes, not those the server serves", len(logo.Body)))
	report("getTenantLogo")
	pdf := must(client.GetReportWithResponse(ctx, tenant, env("DESK_REPORT_KEY")))("getReport")
	expectStatus("getReport", pdf.HTTPResponse, pdf.Body, 200)
	check(bytes.Equal(pdf.Body, readFile("getReport", env("DESK_REPORT_FILE"))), "getReport", fmt.Sprintf("%d bytes, not those the server serves", len(pdf.Body)))
	report("getReport")
}

func main() {
	defer func() {
		if failure, ok := recover().(scenarioFailure); ok {
			fmt.Fprintln(os.Stderr, "FAIL oapi-codegen "+failure.message)
			os.Exit(1)
		}
	}()
	run(os.Getenv)
}
