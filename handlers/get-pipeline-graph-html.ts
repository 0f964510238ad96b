import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { problemResult } from '../src/http/results.js';
import { ARTIFACT_CSP, readPipelineArtifact } from '../src/content/pipeline-artifact.js';

/** GET /api/pipeline/{tenant}/graph_html: the HTML graph, sandboxed, as getPipelineArtifact sends it; 404 when absent. */
export async function getPipelineGraphHtml(input: Input<'getPipelineGraphHtml'>, deps: Deps): Promise<Result<'getPipelineGraphHtml'>> {
  const artifact = await deps.tenants.withKls(input.path.tenant, (db) => readPipelineArtifact(db, 'graph_html'));
  if ('missing' in artifact || artifact.key !== 'graph_html') {
    return problemResult('not-found', `the tenant file of "${input.path.tenant}" holds no pipeline artifact graph_html`);
  }
  const headers = { 'Cache-Control': 'public, max-age=3600', ETag: artifact.etag, 'Content-Security-Policy': ARTIFACT_CSP.graph_html };
  return { status: 200, contentType: 'text/html', body: artifact.html, headers };
}
