import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/pipeline/{tenant}/{artifact_key}: graph_json as JSON, graph_html as sandboxed HTML; 404 when absent. */
export async function getPipelineArtifact(input: Input<'getPipelineArtifact'>, deps: Deps): Promise<Result<'getPipelineArtifact'>> {
  const key = input.path.artifact_key;
  const artifact = await deps.content.pipelineArtifact(deps.tenants.resolve(input.path.tenant), key);
  if (isMissing(artifact)) {
    const why = artifact.missing === 'absent' ? 'holds no' : 'holds no usable (a JSON object)';
    throw new Problem('not-found', `the tenant file of "${input.path.tenant}" ${why} pipeline artifact ${key}`);
  }
  const headers = { 'Cache-Control': 'public, max-age=3600', ETag: artifact.etag, 'Content-Security-Policy': artifact.securityPolicy };
  if (artifact.key === 'graph_html') return { status: 200, contentType: 'text/html', body: artifact.html, headers };
  return { status: 200, contentType: 'application/json', body: artifact.graph, headers };
}
