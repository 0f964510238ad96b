"""The client scenario in Python, through the classes OpenAPI Generator's python generator (pydantic v2) made from
the contract: the same steps, in the same order and under the same names, as its siblings in ../typescript, ../java
and ../go. test/client/openapi-generator.test.ts runs it with the generated package on PYTHONPATH and the server,
token and expected bytes in the environment:
  DESK_URL, DESK_TOKEN (empty: no sign-in), DESK_TENANT, DESK_REPORT_KEY, DESK_LOGO_FILE, DESK_REPORT_FILE,
  DESK_MONEY (the tenant's finding amount as the server writes it), DESK_GRAPH_FILE, DESK_CONTRACT_FILE.
Each step prints `ok <operation>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends
the run with `FAIL python <operation>: <answer>` and exit code 1.
"""

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

from analytics_desk_client import (
    ActionCellInput, AddCellRequest, AddReplyRequest, AddToNoteRequest, ApiClient, CellIdResult, CellInput,
    Configuration, ContentApi, CreateNoteRequest, CreateViewRequest, DimensionsApi, DiscussionCellInput, HealthApi,
    JumpbarMode, LocalizedTextInput, MetaApi, NotebooksApi, NotesApi, Problem, SearchApi, SearchResults,
    SeveritySummaryResponse, TenantList, UpdateViewRequest, ViewsApi,
)
from analytics_desk_client.exceptions import ApiException, OpenApiException
from column_filter import export_with_filter
from pipeline_graph import read_graph_html

T = TypeVar("T")


class ScenarioFailure(Exception):
    pass


def check(condition: bool, operation: str, answer: Any) -> None:
    if not condition:
        raise ScenarioFailure(f"{operation}: {answer}")


def step(operation: str, call: Callable[[], T]) -> T:
    """Runs one call; an exception becomes a failure naming the operation and the answer."""
    try:
        return call()
    except ApiException as error:
        raise ScenarioFailure(f"{operation}: HTTP {error.status} {error.body}") from error
    except (OpenApiException, ValueError) as error:
        raise ScenarioFailure(f"{operation}: {error!r}") from error


def problem_of(operation: str, call: Callable[[], object]) -> Problem:
    """Calls `call`, which must fail with the contract's problem; the problem as the generated model reads it."""
    try:
        call()
    except ApiException as error:
        content_type = (error.headers or {}).get("content-type")
        check(content_type == "application/problem+json", operation, f"media type {content_type}")
        if isinstance(error.data, Problem):
            return error.data
        check(error.body is not None, operation, f"HTTP {error.status} without a body")
        problem = Problem.from_json(str(error.body))
        check(problem is not None, operation, error.body)
        assert problem is not None
        return problem
    raise ScenarioFailure(f"{operation}: answered 2xx where a problem was expected")


def report(operation: str) -> None:
    print(f"ok {operation}", flush=True)


def report_problem(operation: str, problem: Problem) -> None:
    fields = {"type": problem.type, "title": problem.title, "status": problem.status, "detail": problem.detail}
    print(f"problem {operation} {json.dumps(fields)}", flush=True)


def run(env: "os._Environ[str]") -> None:
    tenant = env["DESK_TENANT"]
    name = "Scenario python"
    configuration = Configuration(host=env["DESK_URL"])
    if env.get("DESK_TOKEN", "") != "":
        configuration.access_token = env["DESK_TOKEN"]
    client = ApiClient(configuration)
    health = HealthApi(client)
    search = SearchApi(client)
    views = ViewsApi(client)
    notebooks = NotebooksApi(client)
    notes = NotesApi(client)
    dimensions = DimensionsApi(client)
    content = ContentApi(client)
    meta = MetaApi(client)

    # health
    status = step("getHealth", lambda: health.get_health()).actual_instance
    check(status is not None and status.status == "ok", "getHealth", status)
    report("getHealth")

    # tenants, a search and the findings' amount to the cent
    tenants = step("getJumpbar", lambda: search.get_jumpbar(mode=JumpbarMode.TENANTS)).actual_instance
    check(isinstance(tenants, TenantList) and any(t.id.endswith(f".{tenant}") for t in tenants.tenants), "getJumpbar", tenants)
    report("getJumpbar tenants")
    hits = step("getJumpbar", lambda: search.get_jumpbar(mode=JumpbarMode.SEARCH, tenant=tenant, q="fallpauschale")).actual_instance
    check(isinstance(hits, SearchResults) and len(hits.probes + hits.glossary + hits.entities + hits.dimensions) > 0, "getJumpbar", hits)
    report("getJumpbar search")
    summary = step("getJumpbar", lambda: search.get_jumpbar(mode=JumpbarMode.SUMMARY, tenant=tenant)).actual_instance
    money = repr(summary.summary.money) if isinstance(summary, SeveritySummaryResponse) else None
    check(money == env["DESK_MONEY"], "getJumpbar", f"money read as {money}, sent as {env['DESK_MONEY']}")
    report("getJumpbar summary")

    # a saved view created, listed, renamed, deleted
    created = step("createView", lambda: views.create_view(CreateViewRequest(
        tenant=tenant, entity="cost_centres", name=name, params={"sort": "budget_chf", "order": "desc"})))
    view_id = created.view.view_id
    check(created.view.name == name, "createView", created)
    report("createView")
    listed = step("listViews", lambda: views.list_views(tenant=tenant, entity="cost_centres"))
    check(any(view.view_id == view_id for view in listed.views), "listViews", listed)
    report("listViews")
    renamed = step("updateView", lambda: views.update_view(UpdateViewRequest(tenant=tenant, view_id=view_id, name=f"{name}, renamed")))
    check(renamed.ok, "updateView", renamed)
    relisted = step("listViews", lambda: views.list_views(tenant=tenant))
    check(any(view.view_id == view_id and view.name == f"{name}, renamed" for view in relisted.views), "listViews", relisted)
    report("updateView")
    deleted = step("deleteView", lambda: views.delete_view(tenant=tenant, view_id=view_id))
    check(deleted.ok, "deleteView", deleted)
    remaining = step("listViews", lambda: views.list_views(tenant=tenant))
    check(not any(view.view_id == view_id for view in remaining.views), "listViews", remaining)
    report("deleteView")

    # a notebook cell added and a discussion reply
    with_cell = step("addNotebookCell", lambda: notebooks.add_notebook_cell(tenant, AddCellRequest(
        cell=CellInput(DiscussionCellInput(type="discussion", title=name)))))
    cells = json.loads(with_cell.notebook.cells)
    discussion = next((cell for cell in reversed(cells) if cell["type"] == "discussion" and cell.get("title") == name), None)
    check(discussion is not None, "addNotebookCell", with_cell.notebook.cells)
    assert discussion is not None
    report("addNotebookCell")
    with_reply = step("addDiscussionReply", lambda: notebooks.add_discussion_reply(tenant, discussion["id"], AddReplyRequest(
        author="Lukas Meier", text=LocalizedTextInput(en="Confirmed."))))
    thread: dict[str, Any] = next((cell for cell in json.loads(with_reply.notebook.cells) if cell["id"] == discussion["id"]), {})
    check(len(thread.get("replies", [])) == 1, "addDiscussionReply", with_reply.notebook.cells)
    report("addDiscussionReply")

    # a note with a cell
    note = step("createNote", lambda: notes.create_note(tenant, CreateNoteRequest(title=name, tags=["scenario"])))
    check(note.note.title == name and len(note.note.cells) == 0, "createNote", note)
    report("createNote")
    added = step("addToNote", lambda: notes.add_to_note(tenant, note.note.note_id, AddToNoteRequest(
        cell=CellInput(ActionCellInput(type="action", text="Invoice the confirmed cases")))))
    check(isinstance(added.actual_instance, CellIdResult), "addToNote", added)
    read = step("getNote", lambda: notes.get_note(tenant, note.note.note_id))
    check(len(read.note.cells) == 1, "getNote", read)
    report("addToNote")

    # a dimension export with a sort and a column filter, read as CSV text
    csv, filtered = step("exportDimension", lambda: export_with_filter(dimensions, tenant))
    header, *rows = [line.split(",") for line in csv.rstrip("\r\n").split("\r\n")]
    check("budget_chf" in header and "active" in header and len(rows) > 0, "exportDimension", csv[:200])
    budgets = [float(row[header.index("budget_chf")]) for row in rows]
    check(budgets == sorted(budgets, reverse=True), "exportDimension", f"not sorted by budget_chf desc: {budgets}")
    actives = [row[header.index("active")] for row in rows]
    check(not filtered or all(value == "1" for value in actives), "exportDimension", f"column filter f.active=true not applied: {actives}")
    report("exportDimension")

    # a logo and a report read as bytes
    logo = step("getTenantLogo", lambda: content.get_tenant_logo(tenant))
    check(bytes(logo) == Path(env["DESK_LOGO_FILE"]).read_bytes(), "getTenantLogo", f"{len(logo)} bytes, not those the server serves")
    report("getTenantLogo")
    pdf = step("getReport", lambda: content.get_report(tenant, env["DESK_REPORT_KEY"]))
    check(bytes(pdf) == Path(env["DESK_REPORT_FILE"]).read_bytes(), "getReport", f"{len(pdf)} bytes, not those the server serves")
    report("getReport")

    # the pipeline graph and the contract read as text
    graph = step("getPipelineGraphHtml", lambda: read_graph_html(content, tenant))
    if graph is not None:
        check(graph == Path(env["DESK_GRAPH_FILE"]).read_text(encoding="utf-8"), "getPipelineGraphHtml", f"{len(graph)} characters, not those the server serves")
        report("getPipelineGraphHtml")
    contract = step("getOpenApiYaml", lambda: meta.get_open_api_yaml())
    check(contract == Path(env["DESK_CONTRACT_FILE"]).read_text(encoding="utf-8"), "getOpenApiYaml", f"{len(contract)} characters, not those the server serves")
    report("getOpenApiYaml")

    # a 404 and a 400 read as the contract's problem
    not_found = problem_of("listViews", lambda: views.list_views(tenant="no-such-tenant"))
    check(not_found.status == 404 and not_found.title != "" and not_found.detail != "", "listViews", not_found)
    report_problem("listViews", not_found)
    invalid = problem_of("getJumpbar", lambda: search.get_jumpbar(mode=JumpbarMode.SEARCH, tenant=tenant))
    check(invalid.status == 400 and invalid.title != "" and invalid.detail != "", "getJumpbar", invalid)
    report_problem("getJumpbar", invalid)


if __name__ == "__main__":
    try:
        run(os.environ)
    except ScenarioFailure as failure:
        print(f"FAIL python {failure}", file=sys.stderr)
        sys.exit(1)
