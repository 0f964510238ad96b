// The scenario's pipeline graph as HTML, as this contract's client reads it: `getPipelineGraphHtml`, typed as text.
// release-0.3.0/pipeline-graph.ts is the same step for the client of release 0.3.0, which the test puts in this
// file's place when it runs yesterday's client.
import type { ContentApi } from '../../clients/typescript-fetch/dist/index.js';

/** The tenant's pipeline graph as HTML text, or null when this client has no operation that reads it. */
export async function readGraphHtml(content: ContentApi, tenant: string): Promise<string | null> {
  return content.getPipelineGraphHtml({ tenant });
}
