import fs from 'node:fs';
import type { HealthOutcome } from '../ports/server-state.js';
import type { HealthSources } from './health-sources.js';
import type { KlsStore } from '../store/kls-store.js';
import { toMb } from '../tenants/registry.js';
import type { TenantEntry } from '../tenants/tenants.js';

/**
 * Checks what the service needs to answer: the app database answers a query and KLS_DIR is readable; in store
 * mode also that the store was reachable once or something is cached. `degraded` while some tenant file is
 * unusable (local) or the store or a download reports an error (store) but tenants are served.
 */
export async function checkHealth(deps: HealthSources): Promise<HealthOutcome> {
  const version = deps.buildLabel.label;
  const fail = (error: string) => ({ healthy: false as const, body: { status: 'error' as const, error, mode: deps.config.klsMode, version } });
  try {
    await deps.appDb.ping();
  } catch {
    return fail('app database unreachable');
  }
  try {
    fs.accessSync(deps.config.klsDir, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    return fail('KLS_DIR is not readable');
  }
  const tenants = deps.tenants.list();
  if (deps.store !== null) return storeHealth(deps, deps.store, version, fail);
  const ready = tenants.filter((t) => t.status === 'ready').length;
  return {
    healthy: true,
    body: {
      status: ready === tenants.length ? 'ok' : 'degraded',
      mode: 'local',
      version,
      db: { tenants: ready, appDb: 'ok' },
      sizeMb: totalSizeMb(tenants),
    },
  };
}

function storeHealth(deps: HealthSources, store: KlsStore, version: string, fail: (error: string) => HealthOutcome): HealthOutcome {
  const tenants = deps.tenants.list();
  const served = tenants.filter((t) => t.handle !== null && !t.handle.isClosed).length;
  if (store.neverReached && served === 0) return fail(store.error ?? 'object store unreachable');
  const errors = tenants.filter((t) => t.status === 'error').length;
  return {
    healthy: true,
    body: {
      status: store.error === null && errors === 0 ? 'ok' : 'degraded',
      mode: 'store',
      version,
      tenants: tenants.length,
      downloading: tenants.filter((t) => t.status === 'downloading').length,
      errors,
      initialized: store.initialized,
      sizeMb: totalSizeMb(tenants),
    },
  };
}

/** Total size of the tenant files in service, in MB. */
function totalSizeMb(tenants: readonly TenantEntry[]): number {
  return toMb(tenants.reduce((sum, e) => sum + (e.stamp?.size ?? 0), 0));
}
