import fs from 'node:fs';
import path from 'node:path';

/** Composite ID of the tenant addBrokenTenant writes. */
export const BROKEN_TENANT = 'ost.kaputt';

/** Writes a `kls.sqlite` that is not SQLite under `klsDir` (the tenant is known but unusable: 503). */
export function addBrokenTenant(klsDir: string): void {
  fs.mkdirSync(path.join(klsDir, 'ost', 'kaputt'), { recursive: true });
  fs.writeFileSync(path.join(klsDir, 'ost', 'kaputt', 'kls.sqlite'), 'not a database\n'.repeat(100));
}
