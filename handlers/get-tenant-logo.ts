import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/logo/{tenant}: the database logo, else the LOGO_DIR file; 404 when neither exists. */
export async function getTenantLogo(input: Input<'getTenantLogo'>, deps: Deps): Promise<Result<'getTenantLogo'>> {
  const found = await deps.content.logo(deps.tenants.resolve(input.path.tenant));
  if (isMissing(found)) throw new Problem('not-found', `tenant "${input.path.tenant}" has no logo`);
  return {
    status: 200,
    contentType: found.mediaType,
    body: found.bytes,
    headers: { 'Cache-Control': 'public, max-age=86400', ETag: found.etag, 'Content-Security-Policy': found.securityPolicy },
  };
}
