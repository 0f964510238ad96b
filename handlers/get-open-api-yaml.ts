import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { yamlMediaTypeFor } from '../src/operations/yaml-media-type.js';

/** GET /openapi.yaml: the contract as written, as `application/yaml` or `text/plain` (UTF-8) by the request's `Accept`. */
export async function getOpenApiYaml(input: Input<'getOpenApiYaml'>, deps: Deps): Promise<Result<'getOpenApiYaml'>> {
  const contentType = yamlMediaTypeFor(input.headers['accept']);
  const etag = contentType === 'application/yaml' ? deps.contract.yamlEtag : deps.contract.yamlTextEtag;
  // text/plain names its charset: without one it is US-ASCII (RFC 2046), and the contract has non-ASCII text
  return { status: 200, contentType: contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType, body: deps.contract.yaml, headers: { 'Cache-Control': 'no-cache', ETag: etag, Vary: 'Accept' } };
}
