import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /docs/{asset}: one Swagger UI file. */
export async function getApiDocsAsset(input: Input<'getApiDocsAsset'>, deps: Deps): Promise<Result<'getApiDocsAsset'>> {
  const asset = deps.docs.asset(input.path.asset);
  return {
    status: 200,
    contentType: asset.mediaType,
    body: asset.data,
    headers: { 'Cache-Control': 'public, max-age=86400', ETag: asset.etag, 'X-Content-Type-Options': 'nosniff' },
  } as Result<'getApiDocsAsset'>;
}
