// The client scenario in Java, through the classes OpenAPI Generator's java generator (library okhttp-gson) made
// from the contract: the same steps, in the same order and under the same names, as its siblings in ../typescript,
// ../python and ../go. test/client/openapi-generator.test.ts compiles it against the generated client and runs it
// with the server, token and expected bytes in the environment:
//   DESK_URL, DESK_TOKEN (empty: no sign-in), DESK_TENANT, DESK_REPORT_KEY, DESK_LOGO_FILE, DESK_REPORT_FILE,
//   DESK_MONEY (the tenant's finding amount as the server writes it), DESK_GRAPH_FILE, DESK_CONTRACT_FILE.
// Each step prints `ok <operation>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends
// the run with `FAIL java <operation>: <answer>` and exit code 1.

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import example.desk.client.ApiClient;
import example.desk.client.ApiException;
import example.desk.client.api.ContentApi;
import example.desk.client.api.DimensionsApi;
import example.desk.client.api.HealthApi;
import example.desk.client.api.MetaApi;
import example.desk.client.api.NotebooksApi;
import example.desk.client.api.NotesApi;
import example.desk.client.api.SearchApi;
import example.desk.client.api.ViewsApi;
import example.desk.client.model.ActionCellInput;
import example.desk.client.model.AddCellRequest;
import example.desk.client.model.AddReplyRequest;
import example.desk.client.model.AddToNoteRequest;
import example.desk.client.model.AddToNoteResult;
import example.desk.client.model.CellIdResult;
import example.desk.client.model.CellInput;
import example.desk.client.model.CreateNoteRequest;
import example.desk.client.model.CreateViewRequest;
import example.desk.client.model.DiscussionCellInput;
import example.desk.client.model.HealthLocal;
import example.desk.client.model.HealthStore;
import example.desk.client.model.JumpbarMode;
import example.desk.client.model.LocalizedTextInput;
import example.desk.client.model.NoteResponse;
import example.desk.client.model.NotebookResponse;
import example.desk.client.model.OkResult;
import example.desk.client.model.Problem;
import example.desk.client.model.SearchResults;
import example.desk.client.model.SeveritySummaryResponse;
import example.desk.client.model.TenantList;
import example.desk.client.model.UpdateViewRequest;
import example.desk.client.model.ViewListResponse;
import example.desk.client.model.ViewResponse;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

public final class Scenario {
  private Scenario() {}

  static final class ScenarioFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ScenarioFailure(String message) {
      super(message);
    }
  }

  @FunctionalInterface
  interface Call<T> {
    T run() throws ApiException, IOException;
  }

  static void check(boolean condition, String operation, Object answer) throws ScenarioFailure {
    if (!condition) throw new ScenarioFailure(operation + ": " + answer);
  }

  /** Runs one call; an exception becomes a failure naming the operation and the answer. */
  static <T> T step(String operation, Call<T> call) throws ScenarioFailure {
    try {
      return call.run();
    } catch (ApiException error) {
      throw new ScenarioFailure(operation + ": HTTP " + error.getCode() + " " + error.getResponseBody());
    } catch (IOException | RuntimeException error) {
      throw new ScenarioFailure(operation + ": " + error);
    }
  }

  /** Calls `call`, which must fail with the contract's problem; the problem as the generated model reads it. */
  static Problem problemOf(String operation, Call<?> call) throws ScenarioFailure {
    try {
      call.run();
    } catch (ApiException error) {
      List<String> contentType = error.getResponseHeaders() == null ? null : error.getResponseHeaders().get("content-type");
      check(contentType != null && contentType.equals(List.of("application/problem+json")), operation, "media type " + contentType);
      try {
        return Problem.fromJson(error.getResponseBody());
      } catch (IOException | RuntimeException unreadable) {
        throw new ScenarioFailure(operation + ": HTTP " + error.getCode() + " " + error.getResponseBody() + " (" + unreadable + ")");
      }
    } catch (IOException | RuntimeException error) {
      throw new ScenarioFailure(operation + ": " + error);
    }
    throw new ScenarioFailure(operation + ": answered 2xx where a problem was expected");
  }

  static void report(String operation) {
    System.out.println("ok " + operation);
  }

  static void reportProblem(String operation, Problem problem) {
    JsonObject fields = new JsonObject();
    fields.addProperty("type", problem.getType());
    fields.addProperty("title", problem.getTitle());
    fields.addProperty("status", problem.getStatus());
    fields.addProperty("detail", problem.getDetail());
    System.out.println("problem " + operation + " " + new Gson().toJson(fields));
  }

  /** The notebook's cells (the contract sends them as JSON text). */
  static JsonArray cellsOf(NotebookResponse answer) {
    return JsonParser.parseString(answer.getNotebook().getCells()).getAsJsonArray();
  }

  static byte[] bytesOf(File file) throws IOException {
    return Files.readAllBytes(file.toPath());
  }

  static void run(Map<String, String> env) throws ScenarioFailure, IOException {
    String tenant = env.get("DESK_TENANT");
    String name = "Scenario java";
    ApiClient client = new ApiClient();
    client.setBasePath(env.get("DESK_URL"));
    String token = env.getOrDefault("DESK_TOKEN", "");
    if (!token.isEmpty()) client.setBearerToken(token);
    HealthApi health = new HealthApi(client);
    SearchApi search = new SearchApi(client);
    ViewsApi views = new ViewsApi(client);
    NotebooksApi notebooks = new NotebooksApi(client);
    NotesApi notes = new NotesApi(client);
    DimensionsApi dimensions = new DimensionsApi(client);
    ContentApi content = new ContentApi(client);
    MetaApi meta = new MetaApi(client);

    // health
    Object status = step("getHealth", () -> health.getHealth().execute()).getActualInstance();
    String state = status instanceof HealthLocal local ? local.getStatus().getValue()
        : status instanceof HealthStore store ? store.getStatus().getValue() : null;
    check("ok".equals(state), "getHealth", status);
    report("getHealth");

    // tenants, a search and the findings' amount to the cent
    Object tenants = step("getJumpbar", () -> search.getJumpbar().mode(JumpbarMode.TENANTS).execute()).getActualInstance();
    check(tenants instanceof TenantList list && list.getTenants().stream().anyMatch(t -> t.getId().endsWith("." + tenant)), "getJumpbar", tenants);
    report("getJumpbar tenants");
    Object hits = step("getJumpbar", () -> search.getJumpbar().mode(JumpbarMode.SEARCH).tenant(tenant).q("fallpauschale").execute()).getActualInstance();
    check(hits instanceof SearchResults results
        && results.getProbes().size() + results.getGlossary().size() + results.getEntities().size() + results.getDimensions().size() > 0, "getJumpbar", hits);
    report("getJumpbar search");
    Object summary = step("getJumpbar", () -> search.getJumpbar().mode(JumpbarMode.SUMMARY).tenant(tenant).execute()).getActualInstance();
    String money = summary instanceof SeveritySummaryResponse findings ? findings.getSummary().getMoney().toPlainString() : null;
    check(env.get("DESK_MONEY").equals(money), "getJumpbar", "money read as " + money + ", sent as " + env.get("DESK_MONEY"));
    report("getJumpbar summary");

    // a saved view created, listed, renamed, deleted
    ViewResponse created = step("createView", () -> views.createView(new CreateViewRequest()
        .tenant(tenant).entity("cost_centres").name(name).params(Map.of("sort", "budget_chf", "order", "desc"))).execute());
    UUID viewId = created.getView().getViewId();
    check(name.equals(created.getView().getName()), "createView", created);
    report("createView");
    ViewListResponse listed = step("listViews", () -> views.listViews(tenant).entity("cost_centres").execute());
    check(listed.getViews().stream().anyMatch(view -> view.getViewId().equals(viewId)), "listViews", listed);
    report("listViews");
    OkResult renamed = step("updateView", () -> views.updateView(new UpdateViewRequest().tenant(tenant).viewId(viewId).name(name + ", renamed")).execute());
    check(renamed.getOk(), "updateView", renamed);
    ViewListResponse relisted = step("listViews", () -> views.listViews(tenant).execute());
    check(relisted.getViews().stream().anyMatch(view -> view.getViewId().equals(viewId) && (name + ", renamed").equals(view.getName())), "listViews", relisted);
    report("updateView");
    OkResult deleted = step("deleteView", () -> views.deleteView(tenant, viewId).execute());
    check(deleted.getOk(), "deleteView", deleted);
    ViewListResponse remaining = step("listViews", () -> views.listViews(tenant).execute());
    check(remaining.getViews().stream().noneMatch(view -> view.getViewId().equals(viewId)), "listViews", remaining);
    report("deleteView");

    // a notebook cell added and a discussion reply
    NotebookResponse withCell = step("addNotebookCell", () -> notebooks.addNotebookCell(tenant, new AddCellRequest()
        .cell(new CellInput(new DiscussionCellInput().type(DiscussionCellInput.TypeEnum.DISCUSSION).title(name)))).execute());
    JsonObject discussion = null;
    for (JsonElement cell : cellsOf(withCell)) {
      JsonObject fields = cell.getAsJsonObject();
      if (fields.get("type").getAsString().equals("discussion") && fields.has("title") && fields.get("title").getAsString().equals(name)) discussion = fields;
    }
    check(discussion != null, "addNotebookCell", withCell.getNotebook().getCells());
    report("addNotebookCell");
    UUID cellId = UUID.fromString(discussion.get("id").getAsString());
    NotebookResponse withReply = step("addDiscussionReply", () -> notebooks.addDiscussionReply(tenant, cellId, new AddReplyRequest()
        .author("Lukas Meier").text(new LocalizedTextInput().en("Confirmed."))).execute());
    int replies = -1;
    for (JsonElement cell : cellsOf(withReply)) {
      JsonObject fields = cell.getAsJsonObject();
      if (fields.get("id").getAsString().equals(cellId.toString())) replies = fields.getAsJsonArray("replies").size();
    }
    check(replies == 1, "addDiscussionReply", withReply.getNotebook().getCells());
    report("addDiscussionReply");

    // a note with a cell
    NoteResponse note = step("createNote", () -> notes.createNote(tenant, new CreateNoteRequest().title(name).tags(List.of("scenario"))).execute());
    check(name.equals(note.getNote().getTitle()) && note.getNote().getCells().isEmpty(), "createNote", note);
    report("createNote");
    UUID noteId = note.getNote().getNoteId();
    AddToNoteResult added = step("addToNote", () -> notes.addToNote(tenant, noteId, new AddToNoteRequest()
        .cell(new CellInput(new ActionCellInput().type(ActionCellInput.TypeEnum.ACTION).text("Invoice the confirmed cases")))).execute());
    check(added.getActualInstance() instanceof CellIdResult, "addToNote", added);
    NoteResponse read = step("getNote", () -> notes.getNote(tenant, noteId).execute());
    check(read.getNote().getCells().size() == 1, "getNote", read);
    report("addToNote");

    // a dimension export with a sort and a column filter, read as CSV text
    ColumnFilter.Export export = step("exportDimension", () -> ColumnFilter.exportWithFilter(dimensions, tenant));
    String csv = export.csv();
    boolean filtered = export.filtered();
    List<List<String>> rows = new ArrayList<>();
    for (String line : csv.split("\r\n")) rows.add(Arrays.asList(line.split(",", -1)));
    List<String> header = rows.remove(0);
    int budget = header.indexOf("budget_chf");
    int active = header.indexOf("active");
    check(budget >= 0 && active >= 0 && !rows.isEmpty(), "exportDimension", csv.substring(0, Math.min(200, csv.length())));
    List<Double> budgets = rows.stream().map(row -> Double.valueOf(row.get(budget))).toList();
    boolean descending = true;
    for (int i = 1; i < budgets.size(); i++) descending &= budgets.get(i - 1) >= budgets.get(i);
    check(descending, "exportDimension", "not sorted by budget_chf desc: " + budgets);
    List<String> actives = rows.stream().map(row -> row.get(active)).toList();
    check(!filtered || actives.stream().allMatch("1"::equals), "exportDimension", "column filter f.active=true not applied: " + actives);
    report("exportDimension");

    // a logo and a report read as bytes
    byte[] logo = bytesOf(step("getTenantLogo", () -> content.getTenantLogo(tenant).execute()));
    check(Arrays.equals(logo, Files.readAllBytes(Path.of(env.get("DESK_LOGO_FILE")))), "getTenantLogo", logo.length + " bytes, not those the server serves");
    report("getTenantLogo");
    byte[] pdf = bytesOf(step("getReport", () -> content.getReport(tenant, env.get("DESK_REPORT_KEY")).execute()));
    check(Arrays.equals(pdf, Files.readAllBytes(Path.of(env.get("DESK_REPORT_FILE")))), "getReport", pdf.length + " bytes, not those the server serves");
    report("getReport");

    // the pipeline graph and the contract read as text
    String graph = step("getPipelineGraphHtml", () -> PipelineGraph.readGraphHtml(content, tenant));
    if (graph != null) {
      check(graph.equals(Files.readString(Path.of(env.get("DESK_GRAPH_FILE")))), "getPipelineGraphHtml", graph.length() + " characters, not those the server serves");
      report("getPipelineGraphHtml");
    }
    String contract = step("getOpenApiYaml", () -> meta.getOpenApiYaml().execute());
    check(contract.equals(Files.readString(Path.of(env.get("DESK_CONTRACT_FILE")))), "getOpenApiYaml", contract.length() + " characters, not those the server serves");
    report("getOpenApiYaml");

    // a 404 and a 400 read as the contract's problem
    Problem notFound = problemOf("listViews", () -> views.listViews("no-such-tenant").execute());
    check(notFound.getStatus() == 404 && !notFound.getTitle().isEmpty() && !notFound.getDetail().isEmpty(), "listViews", notFound);
    reportProblem("listViews", notFound);
    Problem invalid = problemOf("getJumpbar", () -> search.getJumpbar().mode(JumpbarMode.SEARCH).tenant(tenant).execute());
    check(invalid.getStatus() == 400 && !invalid.getTitle().isEmpty() && !invalid.getDetail().isEmpty(), "getJumpbar", invalid);
    reportProblem("getJumpbar", invalid);
  }

  public static void main(String[] args) throws IOException {
    try {
      run(System.getenv());
    } catch (ScenarioFailure failure) {
      System.err.println("FAIL java " + failure.getMessage());
      System.exit(1);
    }
  }
}
