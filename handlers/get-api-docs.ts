import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /docs: human documentation (Swagger UI from npm, no CDN). */
export async function getApiDocs(_input: Input<'getApiDocs'>, deps: Deps): Promise<Result<'getApiDocs'>> {
  const page = deps.docs.page();
  return {
    status: 200,
    contentType: 'text/html',
    body: page.data,
    // nosniff and no framing by other sites: the page runs scripts on this server's origin
    headers: { 'Cache-Control': 'no-cache', ETag: page.etag, 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "frame-ancestors 'none'" },
  };
}
