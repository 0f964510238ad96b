// The scenario's pipeline graph as HTML, as this contract's client reads it: getPipelineGraphHtml, typed as text.
// release-0.3.0/PipelineGraph.java is the same step for the client of release 0.3.0, which the test puts in this
// file's place when it runs yesterday's client.

import example.desk.client.ApiException;
import example.desk.client.api.ContentApi;

final class PipelineGraph {
  private PipelineGraph() {}

  /** The tenant's pipeline graph as HTML text, or null when this client has no operation that reads it. */
  static String readGraphHtml(ContentApi content, String tenant) throws ApiException {
    return content.getPipelineGraphHtml(tenant).execute();
  }
}
