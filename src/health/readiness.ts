import fs from 'node:fs';
import type { ReadinessOutcome } from '../ports/server-state.js';
import type { HealthSources } from './health-sources.js';

/** Why an instance is not ready (the contract's `NotReady.reason`), in the order they are checked. */
export type NotReadyReason = 'shutting-down' | 'app-database-unreachable' | 'kls-dir-unreadable' | 'object-store-unreachable' | 'store-not-initialized';

const DETAILS: Record<NotReadyReason, string> = {
  'shutting-down': 'the server is stopping; requests in flight are finished',
  'app-database-unreachable': 'the app database does not answer',
  'kls-dir-unreadable': 'KLS_DIR is not readable',
  'object-store-unreachable': 'the object store was never reached since the start and no tenant file is cached',
  'store-not-initialized': 'the first sync with the object store has not finished',
};

/**
 * Whether this instance should get traffic: not while it stops (SIGTERM), while the app database does not answer,
 * while KLS_DIR cannot be read, nor in store mode before its first sync with the store has finished or while the store
 * was never reached and nothing is cached. Tenant files are opened before the server listens.
 */
export async function checkReadiness(deps: HealthSources): Promise<ReadinessOutcome> {
  const mode = deps.config.klsMode;
  const version = deps.buildLabel.label;
  const reason = await notReadyReason(deps);
  if (reason === null) return { ready: true, body: { status: 'ready', mode, version } };
  return { ready: false, body: { status: 'not_ready', reason, detail: DETAILS[reason], mode, version } };
}

async function notReadyReason(deps: HealthSources): Promise<NotReadyReason | null> {
  if (deps.drain.draining) return 'shutting-down';
  try {
    await deps.appDb.ping();
  } catch {
    return 'app-database-unreachable';
  }
  try {
    fs.accessSync(deps.config.klsDir, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    return 'kls-dir-unreadable';
  }
  const store = deps.store;
  if (store === null) return null;
  const served = deps.tenants.list().some((t) => t.handle !== null && !t.handle.isClosed);
  if (store.neverReached && !served) return 'object-store-unreachable';
  if (!store.initialized) return 'store-not-initialized';
  return null;
}
