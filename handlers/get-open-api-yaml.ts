import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /openapi.yaml: the contract as written. */
export async function getOpenApiYaml(_input: Input<'getOpenApiYaml'>, deps: Deps): Promise<Result<'getOpenApiYaml'>> {
  return {
    status: 200,
    contentType: 'application/yaml',
    body: deps.contract.yaml,
    headers: { 'Cache-Control': 'no-cache', ETag: deps.contract.yamlEtag },
  };
}
