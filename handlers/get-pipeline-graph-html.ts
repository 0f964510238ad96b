import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/pipeline/{tenant}/graph_html: the HTML graph, sandboxed, as getPipelineArtifact sends it; 404 when absent. */
export async function getPipelineGraphHtml(input: Input<'getPipelineGraphHtml'>, deps: Deps): Promise<Result<'getPipelineGraphHtml'>> {
  const artifact = await deps.content.pipelineArtifact(deps.tenants.resolve(input.path.tenant), 'graph_html');
  if (isMissing(artifact) || artifact.key !== 'graph_html') {
    throw new Problem('not-found', `the tenant file of "${input.path.tenant}" holds no pipeline artifact graph_html`);
  }
  const headers = { 'Cache-Control': 'public, max-age=3600', ETag: artifact.etag, 'Content-Security-Policy': artifact.securityPolicy };
  return { status: 200, contentType: 'text/html', body: artifact.html, headers };
}
