// The scenario's pipeline graph as HTML for the client of release 0.3.0 (see ../PipelineGraph.java): that contract
// reaches the HTML only through getPipelineArtifact, whose media type follows `artifact_key`; this generator reads
// that answer as a Map (`Content type "text/html" is not supported for type: java.util.Map`), so yesterday's client
// does not read the graph.

import example.desk.client.ApiException;
import example.desk.client.api.ContentApi;

final class PipelineGraph {
  private PipelineGraph() {}

  /** The tenant's pipeline graph as HTML text, or null when this client has no operation that reads it. */
  static String readGraphHtml(ContentApi content, String tenant) throws ApiException {
    return null;
  }
}
