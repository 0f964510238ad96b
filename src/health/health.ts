import fs from 'node:fs';
import type { Deps } from '../deps.js';

/** Local-mode health (design.md section 10). */
export interface LocalHealth {
  status: 'ok' | 'degraded';
  mode: 'local';
  version: string;
  db: { tenants: number; appDb: 'ok' };
  sizeMb: number;
}

/** The 503 body of GET /health. */
export interface FailedHealth {
  status: 'error';
  error: string;
  mode: 'local' | 'store';
  version: string;
}

/**
 * Checks what the service needs to answer: the app database answers a query and KLS_DIR is readable.
 * `degraded` while some tenant file is unusable but others are served.
 */
export async function checkHealth(deps: Deps): Promise<{ healthy: true; body: LocalHealth } | { healthy: false; body: FailedHealth }> {
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
  const ready = tenants.filter((t) => t.status === 'ready').length;
  return {
    healthy: true,
    body: {
      status: ready === tenants.length ? 'ok' : 'degraded',
      mode: 'local',
      version,
      db: { tenants: ready, appDb: 'ok' },
      sizeMb: deps.tenants.totalSizeMb(),
    },
  };
}
