// The scenario's pipeline graph as HTML for the client of release 0.3.0 (see ../pipeline-graph.ts): that contract
// reaches the HTML only through getPipelineArtifact, whose media type follows `artifact_key`; typescript-fetch parses
// that answer as JSON (`SyntaxError: Unexpected token '<'`), so yesterday's client does not read the graph.
import type { ContentApi } from '../../clients/typescript-fetch/dist/index.js';

/** The tenant's pipeline graph as HTML text, or null when this client has no operation that reads it. */
export async function readGraphHtml(_content: ContentApi, _tenant: string): Promise<string | null> {
  return null;
}
