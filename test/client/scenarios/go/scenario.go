// The client scenario in Go, through the package OpenAPI Generator's go generator made from the contract: the same
// steps, in the same order and under the same names, as its siblings in ../typescript, ../python and ../java.
// test/client/openapi-generator.test.ts copies this folder beside the generated client (../../clients/go, named in
// go.mod's replace directive), builds it and runs it with the server, token and expected bytes in the environment:
//
//	DESK_URL, DESK_TOKEN (empty: no sign-in), DESK_TENANT, DESK_REPORT_KEY, DESK_LOGO_FILE, DESK_REPORT_FILE,
//	DESK_MONEY (the tenant's finding amount as the server writes it), DESK_GRAPH_FILE, DESK_CONTRACT_FILE.
//
// Each step prints `ok <operation>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends
// the run with `FAIL go <operation>: <answer>` and exit code 1.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	desk "example.com/desk/deskclient"
)

type scenarioFailure struct{ message string }

func (f scenarioFailure) Error() string { return f.message }

func check(condition bool, operation string, answer any) {
	if !condition {
		panic(scenarioFailure{fmt.Sprintf("%s: %+v", operation, answer)})
	}
}

// answer is what a generated call returned: its value, the HTTP response and the error.
type answer[T any] struct {
	value    T
	response *http.Response
	err      error
}

func answerOf[T any](value T, response *http.Response, err error) answer[T] {
	return answer[T]{value, response, err}
}

// of returns the value, or ends the scenario with a failure naming the operation and the answer.
func (a answer[T]) of(operation string) T {
	if a.err != nil {
		var apiError *desk.GenericOpenAPIError
		if errors.As(a.err, &apiError) && a.response != nil {
			panic(scenarioFailure{fmt.Sprintf("%s: HTTP %d %s (%v)", operation, a.response.StatusCode, apiError.Body(), a.err)})
		}
		panic(scenarioFailure{fmt.Sprintf("%s: %v", operation, a.err)})
	}
	return a.value
}

// problem returns the contract's problem the call failed with, as the generated model reads it.
func (a answer[T]) problem(operation string) desk.Problem {
	var apiError *desk.GenericOpenAPIError
	if a.err == nil {
		panic(scenarioFailure{operation + ": answered 2xx where a problem was expected"})
	}
	if !errors.As(a.err, &apiError) || a.response == nil {
		panic(scenarioFailure{fmt.Sprintf("%s: %v", operation, a.err)})
	}
	contentType := a.response.Header.Get("Content-Type")
	check(contentType == "application/problem+json", operation, "media type "+contentType)
	problem, ok := apiError.Model().(desk.Problem)
	check(ok, operation, fmt.Sprintf("HTTP %d %s, no problem model", a.response.StatusCode, apiError.Body()))
	return problem
}

func report(operation string) { fmt.Println("ok " + operation) }

func reportProblem(operation string, problem desk.Problem) {
	fields, _ := json.Marshal(map[string]any{"type": problem.Type, "title": problem.Title, "status": problem.Status, "detail": problem.Detail})
	fmt.Printf("problem %s %s\n", operation, fields)
}

type cell struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	Replies []any  `json:"replies"`
}

// cellsOf reads the notebook's cells (the contract sends them as JSON text).
func cellsOf(answer *desk.NotebookResponse) []cell {
	var cells []cell
	check(json.Unmarshal([]byte(answer.Notebook.Cells), &cells) == nil, "cells", answer.Notebook.Cells)
	return cells
}

func readFile(operation string, name string) []byte {
	content, err := os.ReadFile(name)
	check(err == nil, operation, err)
	return content
}

func run(env func(string) string) {
	tenant := env("DESK_TENANT")
	name := "Scenario go"
	configuration := desk.NewConfiguration()
	configuration.Servers = desk.ServerConfigurations{{URL: env("DESK_URL")}}
	client := desk.NewAPIClient(configuration)
	ctx := context.Background()
	if token := env("DESK_TOKEN"); token != "" {
		ctx = context.WithValue(ctx, desk.ContextAccessToken, token)
	}

	// health
	status := answerOf(client.HealthAPI.GetHealth(ctx).Execute()).of("getHealth")
	check(status.HealthLocal != nil && status.HealthLocal.Status == "ok" || status.HealthStore != nil && status.HealthStore.Status == "ok", "getHealth", status)
	report("getHealth")

	// tenants, a search and the findings' amount to the cent
	tenants := answerOf(client.SearchAPI.GetJumpbar(ctx).Mode(desk.JUMPBARMODE_TENANTS).Execute()).of("getJumpbar")
	check(tenants.TenantList != nil && slices.ContainsFunc(tenants.TenantList.Tenants, func(t desk.TenantListItem) bool { return strings.HasSuffix(t.Id, "."+tenant) }), "getJumpbar", tenants)
	report("getJumpbar tenants")
	hits := answerOf(client.SearchAPI.GetJumpbar(ctx).Mode(desk.JUMPBARMODE_SEARCH).Tenant(tenant).Q("fallpauschale").Execute()).of("getJumpbar")
	check(hits.SearchResults != nil && len(hits.SearchResults.Probes)+len(hits.SearchResults.Glossary)+len(hits.SearchResults.Entities)+len(hits.SearchResults.Dimensions) > 0, "getJumpbar", hits)
	report("getJumpbar search")
	summary := answerOf(client.SearchAPI.GetJumpbar(ctx).Mode(desk.JUMPBARMODE_SUMMARY).Tenant(tenant).Execute()).of("getJumpbar")
	money := "none"
	if summary.SeveritySummaryResponse != nil {
		money = strconv.FormatFloat(summary.SeveritySummaryResponse.Summary.Money, 'f', -1, 64)
	}
	check(money == env("DESK_MONEY"), "getJumpbar", fmt.Sprintf("money read as %s, sent as %s", money, env("DESK_MONEY")))
	report("getJumpbar summary")

	// a saved view created, listed, renamed, deleted
	created := answerOf(client.ViewsAPI.CreateView(ctx).CreateViewRequest(*desk.NewCreateViewRequest(
		tenant, "cost_centres", name, map[string]any{"sort": "budget_chf", "order": "desc"})).Execute()).of("createView")
	viewID := created.View.ViewId
	check(created.View.Name == name, "createView", created)
	report("createView")
	listed := answerOf(client.ViewsAPI.ListViews(ctx).Tenant(tenant).Entity("cost_centres").Execute()).of("listViews")
	check(slices.ContainsFunc(listed.Views, func(v desk.SavedView) bool { return v.ViewId == viewID }), "listViews", listed)
	report("listViews")
	rename := desk.NewUpdateViewRequest(tenant, viewID)
	rename.SetName(name + ", renamed")
	renamed := answerOf(client.ViewsAPI.UpdateView(ctx).UpdateViewRequest(*rename).Execute()).of("updateView")
	check(renamed.Ok, "updateView", renamed)
	relisted := answerOf(client.ViewsAPI.ListViews(ctx).Tenant(tenant).Execute()).of("listViews")
	check(slices.ContainsFunc(relisted.Views, func(v desk.SavedView) bool { return v.ViewId == viewID && v.Name == name+", renamed" }), "listViews", relisted)
	report("updateView")
	deleted := answerOf(client.ViewsAPI.DeleteView(ctx).Tenant(tenant).ViewId(viewID).Execute()).of("deleteView")
	check(deleted.Ok, "deleteView", deleted)
	remaining := answerOf(client.ViewsAPI.ListViews(ctx).Tenant(tenant).Execute()).of("listViews")
	check(!slices.ContainsFunc(remaining.Views, func(v desk.SavedView) bool { return v.ViewId == viewID }), "listViews", remaining)
	report("deleteView")

	// a notebook cell added and a discussion reply
	withCell := answerOf(client.NotebooksAPI.AddNotebookCell(ctx, tenant).AddCellRequest(*desk.NewAddCellRequest(
		desk.DiscussionCellInputAsCellInput(desk.NewDiscussionCellInput("discussion", name)))).Execute()).of("addNotebookCell")
	cells := cellsOf(withCell)
	var discussion *cell
	for i := range cells {
		if cells[i].Type == "discussion" && cells[i].Title == name {
			discussion = &cells[i]
		}
	}
	check(discussion != nil, "addNotebookCell", withCell.Notebook.Cells)
	report("addNotebookCell")
	text := desk.NewLocalizedTextInput()
	text.SetEn("Confirmed.")
	withReply := answerOf(client.NotebooksAPI.AddDiscussionReply(ctx, tenant, discussion.ID).AddReplyRequest(*desk.NewAddReplyRequest("Lukas Meier", *text)).Execute()).of("addDiscussionReply")
	thread := slices.IndexFunc(cellsOf(withReply), func(c cell) bool { return c.ID == discussion.ID && len(c.Replies) == 1 })
	check(thread >= 0, "addDiscussionReply", withReply.Notebook.Cells)
	report("addDiscussionReply")

	// a note with a cell
	newNote := desk.NewCreateNoteRequest(name)
	newNote.SetTags([]string{"scenario"})
	note := answerOf(client.NotesAPI.CreateNote(ctx, tenant).CreateNoteRequest(*newNote).Execute()).of("createNote")
	check(note.Note.Title == name && len(note.Note.Cells) == 0, "createNote", note)
	report("createNote")
	addition := desk.NewAddToNoteRequest()
	addition.SetCell(desk.ActionCellInputAsCellInput(desk.NewActionCellInput("action", "Invoice the confirmed cases")))
	added := answerOf(client.NotesAPI.AddToNote(ctx, tenant, note.Note.NoteId).AddToNoteRequest(*addition).Execute()).of("addToNote")
	check(added.CellIdResult != nil, "addToNote", added)
	read := answerOf(client.NotesAPI.GetNote(ctx, tenant, note.Note.NoteId).Execute()).of("getNote")
	check(len(read.Note.Cells) == 1, "getNote", read)
	report("addToNote")

	// a dimension export with a sort and a column filter, read as CSV text
	csv, filtered := exportWithFilter(ctx, client, tenant)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(csv, "\r\n"), "\r\n") {
		rows = append(rows, strings.Split(line, ","))
	}
	header, rows := rows[0], rows[1:]
	budget, active := slices.Index(header, "budget_chf"), slices.Index(header, "active")
	check(budget >= 0 && active >= 0 && len(rows) > 0, "exportDimension", csv[:min(200, len(csv))])
	var budgets []float64
	var actives []string
	for _, row := range rows {
		value, err := strconv.ParseFloat(row[budget], 64)
		check(err == nil, "exportDimension", row)
		budgets = append(budgets, value)
		actives = append(actives, row[active])
	}
	check(slices.IsSortedFunc(budgets, func(a, b float64) int { return -compare(a, b) }), "exportDimension", fmt.Sprintf("not sorted by budget_chf desc: %v", budgets))
	check(!filtered || !slices.ContainsFunc(actives, func(value string) bool { return value != "1" }), "exportDimension", fmt.Sprintf("column filter f.active=true not applied: %v", actives))
	report("exportDimension")

	// a logo and a report read as bytes
	logo := answerOf(client.ContentAPI.GetTenantLogo(ctx, tenant).Execute()).of("getTenantLogo")
	logoBytes := readFile("getTenantLogo", logo.Name())
	check(bytes.Equal(logoBytes, readFile("getTenantLogo", env("DESK_LOGO_FILE"))), "getTenantLogo", fmt.Sprintf("%d bytes, not those the server serves", len(logoBytes)))
	report("getTenantLogo")
	pdf := answerOf(client.ContentAPI.GetReport(ctx, tenant, env("DESK_REPORT_KEY")).Execute()).of("getReport")
	pdfBytes := readFile("getReport", pdf.Name())
	check(bytes.Equal(pdfBytes, readFile("getReport", env("DESK_REPORT_FILE"))), "getReport", fmt.Sprintf("%d bytes, not those the server serves", len(pdfBytes)))
	report("getReport")

	// the pipeline graph and the contract read as text
	if graph, read := readGraphHtml(ctx, client, tenant); read {
		check(graph == string(readFile("getPipelineGraphHtml", env("DESK_GRAPH_FILE"))), "getPipelineGraphHtml", fmt.Sprintf("%d characters, not those the server serves", len(graph)))
		report("getPipelineGraphHtml")
	}
	contract := answerOf(client.MetaAPI.GetOpenApiYaml(ctx).Execute()).of("getOpenApiYaml")
	check(contract == string(readFile("getOpenApiYaml", env("DESK_CONTRACT_FILE"))), "getOpenApiYaml", fmt.Sprintf("%d characters, not those the server serves", len(contract)))
	report("getOpenApiYaml")

	// a 404 and a 400 read as the contract's problem
	notFound := answerOf(client.ViewsAPI.ListViews(ctx).Tenant("no-such-tenant").Execute()).problem("listViews")
	check(notFound.Status == 404 && notFound.Title != "" && notFound.Detail != "", "listViews", notFound)
	reportProblem("listViews", notFound)
	invalid := answerOf(client.SearchAPI.GetJumpbar(ctx).Mode(desk.JUMPBARMODE_SEARCH).Tenant(tenant).Execute()).problem("getJumpbar")
	check(invalid.Status == 400 && invalid.Title != "" && invalid.Detail != "", "getJumpbar", invalid)
	reportProblem("getJumpbar", invalid)
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func main() {
	defer func() {
		if failure, ok := recover().(scenarioFailure); ok {
			fmt.Fprintln(os.Stderr, "FAIL go "+failure.message)
			os.Exit(1)
		}
	}()
	run(os.Getenv)
}
