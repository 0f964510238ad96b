import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAppDatabase, type AppDatabase } from './appdb/app-database.js';
import { readBuildLabel, type BuildLabel } from './build-label.js';
import type { Config } from './config.js';
import { loadContractDocument, type ContractDocument } from './contract-document.js';
import { readGitIdentity, type GitIdentity } from './identity/git-identity.js';
import type { Logger } from './logger.js';
import { projectRoot } from './project-root.js';
import { TenantRegistry, type TenantEntry } from './tenants/registry.js';

/** The narrow ports handlers and domain code use; built once by createDeps, replaced wholesale in tests. */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly buildLabel: BuildLabel;
  readonly contract: ContractDocument;
  readonly tenants: TenantRegistry;
  readonly appDb: AppDatabase;
  /** Git identity, from the tenant's work tree when one exists (design.md section 9). */
  readonly identity: (tenant: TenantEntry | null) => Promise<GitIdentity>;
}

/** Deps plus the means to release them on shutdown. */
export interface OwnedDeps extends Deps {
  close(): Promise<void>;
}

/** How often local mode looks for added, replaced or removed tenant files. */
const LOCAL_SCAN_INTERVAL_MS = 5000;

/** Builds every dependency from the configuration: tenant registry, app database, contract, identity. */
export async function createDeps(config: Config, log: Logger): Promise<OwnedDeps> {
  if (config.klsMode === 'store') {
    // KLS store mode is issue #3; until it lands the server says so instead of serving an empty store.
    throw new Error('KLS_MODE=store is not available in this build yet (object-store sync lands with issue #3); use KLS_MODE=local');
  }
  const root = projectRoot();
  const tenants = new TenantRegistry(config.klsDir, 'local', log);
  tenants.scanLocal();
  const scanTimer = setInterval(() => tenants.scanLocal(), LOCAL_SCAN_INTERVAL_MS);
  scanTimer.unref();

  const appDb = await openAppDatabase(config.appDbPath);
  const home = os.homedir();
  return {
    config,
    log,
    buildLabel: readBuildLabel(root),
    contract: loadContractDocument(root),
    tenants,
    appDb,
    identity: (tenant) =>
      readGitIdentity(config.gitWorkspacesDir, tenant === null ? [] : [tenant.compositeId, tenant.slug], fs.existsSync(home) ? home : path.parse(root).root),
    async close() {
      clearInterval(scanTimer);
      tenants.close();
      await appDb.close();
    },
  };
}
