import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { LOGO_CSP, readDatabaseLogo, readLogoFile } from '../src/content/logo.js';

/** GET /api/logo/{tenant}: the database logo, else the LOGO_DIR file; 404 when neither exists. */
export async function getTenantLogo(input: Input<'getTenantLogo'>, deps: Deps): Promise<Result<'getTenantLogo'>> {
  const { logo, slug } = await deps.tenants.withKls(input.path.tenant, (db, entry) => ({ logo: readDatabaseLogo(db), slug: entry.slug }));
  const found = logo ?? (await readLogoFile(deps.config.logoDir, slug));
  if (found === null) return problemResult('not-found', `tenant "${input.path.tenant}" has no logo`);
  return {
    status: 200,
    contentType: found.mediaType,
    body: found.bytes,
    headers: { 'Cache-Control': 'public, max-age=86400', ETag: found.etag, 'Content-Security-Policy': LOGO_CSP },
  };
}
