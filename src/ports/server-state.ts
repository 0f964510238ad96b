import type { components } from '../../generated/openapi.js';
import type { Tenants } from '../tenants/tenants.js';

type Schemas = components['schemas'];

// The ports of the server's own state: its health and readiness, the store its tenant files come from, and the page
// of its API documentation.

/** The answer of GET /health: healthy (200) or not (503). */
export type HealthOutcome = { healthy: true; body: Schemas['HealthLocal'] | Schemas['HealthStore'] } | { healthy: false; body: Schemas['HealthError'] };

/** The answer of GET /health/ready: ready (200) or not (503). */
export type ReadinessOutcome = { ready: true; body: Schemas['Ready'] } | { ready: false; body: Schemas['NotReady'] };

/** Health and readiness of this instance. */
export interface Health {
  health(): Promise<HealthOutcome>;
  readiness(): Promise<ReadinessOutcome>;
}

/** A refresh as the request asks for it, from the query or the JSON body (body values win). */
export interface RefreshRequest {
  scope?: 'all' | 'pack' | 'tenant' | undefined;
  pack?: string | undefined;
  tenant?: string | undefined;
  wait?: boolean | undefined;
}

/** A refresh's answer: its body, and in store mode which instances carry it out (the `X-Refresh-Reach` header). */
export interface RefreshAnswer {
  body: Schemas['RefreshSkipped'] | Schemas['RefreshAccepted'];
  reach: 'cluster' | 'instance' | null;
}

/** The tenant files' source: its status and refreshes. */
export interface TenantSource {
  /**
   * The store's and each tenant's state, over the tenants of `view` (the caller's); with `includeCache`, the
   * instance's cache too; `active: false` in local mode.
   */
  status(view: Tenants, includeCache?: boolean): Schemas['StoreStatusInactive'] | Schemas['StoreStatusActive'];
  /**
   * Refreshes the scope `request` names (400 without its pack or tenant, 404 for one `view` does not have, 403 when
   * `view` does not cover it), on this instance and, announced, on every instance on a PostgreSQL app database;
   * `skipped` in local mode.
   */
  refresh(request: RefreshRequest, view: Tenants): Promise<RefreshAnswer>;
}

/** A file of Swagger UI's that the page loads. */
export type DocAssetName = 'swagger-ui.css' | 'swagger-ui-bundle.js' | 'swagger-ui-standalone-preset.js' | 'favicon-32x32.png';

/** A body ready to send, with its media type and tag. */
export interface StaticBody {
  data: Buffer | string;
  mediaType: string;
  etag: string;
}

/** The interactive documentation of the contract (Swagger UI at /docs). */
export interface ApiDocs {
  page(): StaticBody;
  asset(name: DocAssetName): StaticBody;
}
