import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { yamlMediaTypeFor } from '../src/operations/yaml-media-type.js';

/** GET /openapi.yaml: the contract as written, as `application/yaml` or `text/plain` by the request's `Accept`. */
export async function getOpenApiYaml(input: Input<'getOpenApiYaml'>, deps: Deps): Promise<Result<'getOpenApiYaml'>> {
  const contentType = yamlMediaTypeFor(input.headers['accept']);
  const etag = contentType === 'application/yaml' ? deps.contract.yamlEtag : deps.contract.yamlTextEtag;
  return { status: 200, contentType, body: deps.contract.yaml, headers: { 'Cache-Control': 'no-cache', ETag: etag, Vary: 'Accept' } };
}
