"""The client scenario in Python, through the package openapi-python-client made from the contract
(openapi-python-client.yaml: the package desk_client, binary answers as File). test/client/other-generators.test.ts
copies this folder beside the contract, generates the package, type-checks both with mypy and runs the scenario with
the server and the expected bytes in the environment (the same variables as ../oapi-codegen/main.go). Each step
prints `ok <step>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends the run with
`FAIL openapi-python-client <step>: <answer>`."""

import json
import os
import sys
from http import HTTPStatus
from pathlib import Path
from typing import Any
from uuid import UUID

from desk_client import AuthenticatedClient, Client
from desk_client.api.content import get_pipeline_graph_html, get_report, get_tenant_logo
from desk_client.api.dimensions import export_dimension
from desk_client.api.health import get_health
from desk_client.api.meta import get_open_api_yaml
from desk_client.api.notebooks import add_notebook_cell, update_notebook_cell
from desk_client.api.search import get_jumpbar
from desk_client.api.views import create_view, delete_view, list_views, update_view
from desk_client.models import (
    AddCellRequest,
    CreateViewRequest,
    CreateViewRequestParams,
    DiscussionCellInput,
    DiscussionCellInputType,
    ExportDimensionFilters,
    HealthLocal,
    JumpbarMode,
    NotebookResponse,
    OkResult,
    Problem,
    SearchResults,
    SeveritySummaryResponse,
    SortOrder,
    TenantList,
    UpdateCellRequest,
    UpdateCellRequestUpdates,
    UpdateViewRequest,
    ViewResponse,
)
from desk_client.types import File


class ScenarioFailure(Exception):
    pass


def check(condition: bool, step: str, answer: object) -> None:
    if not condition:
        raise ScenarioFailure(f"{step}: {answer}")


def report(step: str) -> None:
    print(f"ok {step}", flush=True)


def report_problem(operation: str, problem: object) -> None:
    check(isinstance(problem, Problem), operation, f"no problem read: {problem}")
    assert isinstance(problem, Problem)
    fields = {"type": problem.type_, "title": problem.title, "status": problem.status, "detail": problem.detail}
    print(f"problem {operation} {json.dumps(fields)}", flush=True)


def csv_rows(step: str, csv: object) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV export (the demo's values hold no commas or quotes)."""
    check(isinstance(csv, str), step, csv)
    assert isinstance(csv, str)
    header, *rows = [line.split(",") for line in csv.removesuffix("\r\n").split("\r\n")]
    check(len(rows) > 0, step, csv)
    return header, rows


def run() -> None:
    env = os.environ
    tenant = env["DESK_TENANT"]
    client: Client | AuthenticatedClient = Client(base_url=env["DESK_URL"])
    if env.get("DESK_TOKEN", "") != "":
        client = AuthenticatedClient(base_url=env["DESK_URL"], token=env["DESK_TOKEN"])

    # health: a oneOf with a discriminator (mode)
    health = get_health.sync_detailed(client=client)
    check(isinstance(health.parsed, HealthLocal) and health.parsed.status == "ok", "getHealth", health.content)
    report("getHealth")

    # the jumpbar's answer is a oneOf without a discriminator: the parser tries its members in turn
    tenants = get_jumpbar.sync_detailed(client=client, mode=JumpbarMode.TENANTS)
    listed_tenants = tenants.parsed
    check(isinstance(listed_tenants, TenantList), "getJumpbar tenants", tenants.content)
    assert isinstance(listed_tenants, TenantList)
    check(any(item.id.endswith(f".{tenant}") for item in listed_tenants.tenants), "getJumpbar tenants", tenants.content)
    report("getJumpbar tenants")
    search = get_jumpbar.sync_detailed(client=client, mode=JumpbarMode.SEARCH, tenant=tenant, q="fallpauschale")
    hits = search.parsed
    check(isinstance(hits, SearchResults), "getJumpbar search", search.content)
    assert isinstance(hits, SearchResults)
    check(len(hits.probes) + len(hits.glossary) + len(hits.entities) + len(hits.dimensions) > 0, "getJumpbar search", search.content)
    report("getJumpbar search")
    summary = get_jumpbar.sync_detailed(client=client, mode=JumpbarMode.SUMMARY, tenant=tenant)
    severity = summary.parsed
    check(isinstance(severity, SeveritySummaryResponse), "getJumpbar summary", summary.content)
    assert isinstance(severity, SeveritySummaryResponse)
    money = repr(severity.summary.money)
    check(money == env["DESK_MONEY"], "getJumpbar summary", f"money read as {money}, sent as {env['DESK_MONEY']}")
    report("getJumpbar summary")

    # a slug in two packs: 409, read as the contract's problem
    ambiguous = list_views.sync_detailed(client=client, tenant=env["DESK_AMBIGUOUS_TENANT"])
    check(ambiguous.status_code == HTTPStatus.CONFLICT, "listViews 409", ambiguous.content)
    report_problem("listViews", ambiguous.parsed)
    report("listViews 409")

    # a saved view: its ETag, a rename with If-Match, the same rename with the old tag (412), then deleted
    name = "Scenario openapi-python-client"
    params = CreateViewRequestParams.from_dict({"sort": "budget_chf"})
    created = create_view.sync_detailed(client=client, body=CreateViewRequest(tenant=tenant, entity="cost_centres", name=name, params=params))
    view = created.parsed
    view_tag = created.headers.get("ETag")
    check(isinstance(view, ViewResponse) and view.view.name == name and view_tag is not None, "createView", created.content)
    assert isinstance(view, ViewResponse) and view_tag is not None
    report("createView")
    rename = UpdateViewRequest(tenant=tenant, view_id=view.view.view_id, name=f"{name}, renamed")
    updated = update_view.sync_detailed(client=client, body=rename, if_match=view_tag)
    renamed_tag = updated.headers.get("ETag")
    check(isinstance(updated.parsed, OkResult) and updated.parsed.ok and renamed_tag not in (None, view_tag), "updateView", updated.content)
    assert renamed_tag is not None
    report("updateView")
    stale = update_view.sync_detailed(client=client, body=rename, if_match=view_tag)
    check(stale.status_code == HTTPStatus.PRECONDITION_FAILED, "updateView 412", stale.content)
    report_problem("updateView", stale.parsed)
    report("updateView 412")
    deleted = delete_view.sync_detailed(client=client, tenant=tenant, view_id=view.view.view_id, if_match=renamed_tag)
    check(isinstance(deleted.parsed, OkResult) and deleted.parsed.ok, "deleteView", deleted.content)
    report("deleteView")

    # a notebook cell: added (201, ETag, Location), changed with If-Match, changed again with the old tag (412)
    cell = DiscussionCellInput(type_=DiscussionCellInputType.DISCUSSION, title=name)
    added = add_notebook_cell.sync_detailed(tenant, client=client, body=AddCellRequest(cell=cell))
    location, notebook_tag = added.headers.get("Location"), added.headers.get("ETag")
    check(added.status_code == HTTPStatus.CREATED and location is not None and notebook_tag is not None, "addNotebookCell", added.content)
    assert location is not None and notebook_tag is not None and isinstance(added.parsed, NotebookResponse)
    cell_id = UUID(location.rsplit("/", 1)[1])
    check(f'"{cell_id}"' in added.parsed.notebook.cells, "addNotebookCell", location)
    report("addNotebookCell")
    change = UpdateCellRequest(updates=UpdateCellRequestUpdates.from_dict({"title": f"{name}, renamed"}))
    changed = update_notebook_cell.sync_detailed(tenant, cell_id, client=client, body=change, if_match=notebook_tag)
    changed_tag = changed.headers.get("ETag")
    check(isinstance(changed.parsed, NotebookResponse) and f"{name}, renamed" in changed.parsed.notebook.cells and changed_tag not in (None, notebook_tag), "updateNotebookCell", changed.content)
    report("updateNotebookCell")
    refused = update_notebook_cell.sync_detailed(tenant, cell_id, client=client, body=change, if_match=notebook_tag)
    check(refused.status_code == HTTPStatus.PRECONDITION_FAILED, "updateNotebookCell 412", refused.content)
    report_problem("updateNotebookCell", refused.parsed)
    report("updateNotebookCell 412")

    # a CSV export sorted by budget, unfiltered and with the column filter in both forms (text: str)
    order: dict[str, Any] = {"sort": "budget_chf", "order": SortOrder.DESC}
    everything = export_dimension.sync_detailed(tenant, "cost_centres", client=client, **order)
    _, all_rows = csv_rows("exportDimension", everything.parsed)
    listed = export_dimension.sync_detailed(tenant, "cost_centres", client=client, filter_=["active:true"], **order)
    header, rows = csv_rows("exportDimension filter", listed.parsed)
    active = header.index("active") if "active" in header else -1
    check(active >= 0 and len(rows) < len(all_rows) and all(row[active] == "1" for row in rows), "exportDimension filter", listed.content)
    report("exportDimension filter")
    exploded = export_dimension.sync_detailed(tenant, "cost_centres", client=client, filters=ExportDimensionFilters.from_dict({"f.active": "true"}), **order)
    check(exploded.status_code == HTTPStatus.OK and exploded.parsed == listed.parsed, "exportDimension filters", exploded.content)
    report("exportDimension filters")

    # the HTML graph and the contract as text; the logo and a report as bytes (File)
    graph = get_pipeline_graph_html.sync_detailed(tenant, client=client)
    check(graph.parsed == Path(env["DESK_GRAPH_FILE"]).read_text(encoding="utf-8"), "getPipelineGraphHtml", f"{len(graph.content)} bytes, not those the server serves")
    report("getPipelineGraphHtml")
    contract = get_open_api_yaml.sync_detailed(client=client)
    check(contract.parsed == Path(env["DESK_CONTRACT_FILE"]).read_text(encoding="utf-8"), "getOpenApiYaml", f"{len(contract.content)} bytes, not those the server serves")
    report("getOpenApiYaml")
    logo = get_tenant_logo.sync_detailed(tenant, client=client)
    check(isinstance(logo.parsed, File) and logo.parsed.payload.read() == Path(env["DESK_LOGO_FILE"]).read_bytes(), "getTenantLogo", f"{len(logo.content)} bytes, not those the server serves")
    report("getTenantLogo")
    pdf = get_report.sync_detailed(tenant, env["DESK_REPORT_KEY"], client=client)
    check(isinstance(pdf.parsed, File) and pdf.parsed.payload.read() == Path(env["DESK_REPORT_FILE"]).read_bytes(), "getReport", f"{len(pdf.content)} bytes, not those the server serves")
    report("getReport")


if __name__ == "__main__":
    try:
        run()
    except ScenarioFailure as failure:
        print(f"FAIL openapi-python-client {failure}", file=sys.stderr)
        sys.exit(1)
