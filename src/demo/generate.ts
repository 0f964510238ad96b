import path from 'node:path';
import { writeAfs } from './afs.js';
import { writeFileAtomic } from './files.js';
import { KLS_FIXED_STEPS, writeTenantKls, writeTenantSis } from './kls.js';
import { svgLogo } from './logos.js';
import { demoTenants } from './tenants.js';

/** Options of generateDemo. */
export interface DemoOptions {
  /** Output folder (DATA_DIR layout: kls/, afs/, logos/). */
  out: string;
  /** Number of tenants, at least 3 (default 4: the fixture tenants). */
  tenants?: number;
  /** Rows of dim_materials (default 500). */
  rows?: number;
  /** Generated search items per tenant beyond the hand-written ones (default 0). */
  searchItems?: number;
  /** Called as work progresses; `done` reaches `total` at the end. */
  progress?: (done: number, total: number, label: string) => void;
}

/** What generateDemo wrote; paths are absolute. */
export interface DemoSummary {
  tenants: { compositeId: string; pack: string; slug: string; file: string }[];
  afsFiles: string[];
}

/** Default and minimum option values. */
export const DEMO_DEFAULTS = { tenants: 4, minTenants: 3, rows: 500, searchItems: 0 } as const;

/** Writes the deterministic demo dataset under `opts.out`; throws RangeError on invalid options. */
export function generateDemo(opts: DemoOptions): DemoSummary {
  const tenantCount = checkedInteger('tenants', opts.tenants ?? DEMO_DEFAULTS.tenants, DEMO_DEFAULTS.minTenants);
  const rows = checkedInteger('rows', opts.rows ?? DEMO_DEFAULTS.rows, 1);
  const searchItems = checkedInteger('searchItems', opts.searchItems ?? DEMO_DEFAULTS.searchItems, 0);
  const out = path.resolve(opts.out);
  const tenants = demoTenants(tenantCount);
  const total = tenants.length * (KLS_FIXED_STEPS + rows + searchItems) + 2;
  let done = 0;
  const report = (units: number, label: string): void => {
    done = Math.min(total, done + units);
    opts.progress?.(done, total, label);
  };
  const afsFiles = writeAfs(path.join(out, 'afs'));
  report(1, 'afs');
  for (const tenant of tenants) {
    if (tenant.logo === 'file-svg') {
      writeFileAtomic(path.join(out, 'logos', `${tenant.slug}.svg`), svgLogo(tenant.displayName, tenant.colour));
    }
  }
  report(1, 'logos');
  const summary: DemoSummary = { tenants: [], afsFiles };
  for (const tenant of tenants) {
    const folder = path.join(out, 'kls', tenant.pack, tenant.slug);
    const file = path.join(folder, 'kls.sqlite');
    writeTenantKls(file, tenant, { rows, searchItems }, report);
    if (tenant.hasSis) writeTenantSis(path.join(folder, 'sis.sqlite'), tenant);
    summary.tenants.push({ compositeId: tenant.compositeId, pack: tenant.pack, slug: tenant.slug, file });
  }
  if (done < total) report(total - done, 'done');
  return summary;
}

function checkedInteger(name: string, value: number, minimum: number): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new RangeError(`${name} must be an integer of at least ${minimum} (got ${value})`);
  }
  return value;
}
