import type { Deps } from '../src/ports/deps.js';
import type { components } from '../generated/openapi.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /openapi.json: the contract as JSON. */
export async function getOpenApiJson(_input: Input<'getOpenApiJson'>, deps: Deps): Promise<Result<'getOpenApiJson'>> {
  return {
    status: 200,
    body: deps.contract.document as unknown as components['schemas']['OpenApiDocument'],
    headers: { 'Cache-Control': 'no-cache', ETag: deps.contract.jsonEtag },
  };
}
