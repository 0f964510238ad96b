import type { Deps } from '../src/ports.js';
import { DOCS_PAGE, DOCS_PAGE_ETAG } from '../src/docs/swagger-ui.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /docs: human documentation (Swagger UI from npm, no CDN). */
export async function getApiDocs(_input: Input<'getApiDocs'>, _deps: Deps): Promise<Result<'getApiDocs'>> {
  return {
    status: 200,
    contentType: 'text/html',
    body: DOCS_PAGE,
    // nosniff and no framing by other sites: the page runs scripts on this server's origin
    headers: { 'Cache-Control': 'no-cache', ETag: DOCS_PAGE_ETAG, 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "frame-ancestors 'none'" },
  };
}
