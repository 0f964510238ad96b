import type { HandlerMap } from '../src/http/contract.js';
import { notImplementedHandlers, type NotImplementedOperation } from '../src/http/not-implemented.js';
import { getApiDocs } from './get-api-docs.js';
import { getApiDocsAsset } from './get-api-docs-asset.js';
import { getDbStatus } from './get-db-status.js';
import { getHealth } from './get-health.js';
import { getIdentity } from './get-identity.js';
import { getJumpbar } from './get-jumpbar.js';
import { getOpenApiJson } from './get-open-api-json.js';
import { getOpenApiYaml } from './get-open-api-yaml.js';
import { getStoreStatus } from './get-store-status.js';
import { refreshStore } from './refresh-store.js';
import { refreshStoreViaGet } from './refresh-store-via-get.js';
// issue #3 imports
// issue #4 imports
// issue #5 imports
// issue #6 imports
// issue #7 imports
// issue #8 imports

const implemented = {
  getHealth,
  getIdentity,
  getStoreStatus,
  getDbStatus,
  getJumpbar,
  refreshStore,
  refreshStoreViaGet,
  getOpenApiYaml,
  getOpenApiJson,
  getApiDocs,
  getApiDocsAsset,
  // issue #3 handlers
  // issue #4 handlers
  // issue #5 handlers
  // issue #6 handlers
  // issue #7 handlers
  // issue #8 handlers
};

/** An operation may not be both implemented and on the 501 list. */
type Overlap = keyof typeof implemented & NotImplementedOperation;
const noOverlap: [Overlap] extends [never] ? true : Overlap = true;
void noOverlap;

/** The one handler map: tsc fails when an operation of openapi.yaml has no handler or a handler has no operation. */
export const handlers = { ...implemented, ...notImplementedHandlers } satisfies HandlerMap;
