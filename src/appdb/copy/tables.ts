import { LEASES_TABLE, WINDOWS_TABLE } from '../../auth/limit-store.js';

/*
 * Which tables of the app database the copy moves. The list is explicit, in the order the rows are written, and
 * `test/unit/appdb-copy-tables.test.ts` fails when the migrations make a table that is in neither list: a new
 * table is then either copied or named here with the reason it is not.
 */

/** How the copy treats a table: `data` is what users wrote (a target holding any refuses without `--replace`). */
export type CopiedTableKind = 'meta' | 'data';

/** A table whose every row is copied. */
export interface CopiedTable {
  readonly name: string;
  readonly kind: CopiedTableKind;
  /** What the table holds, as the command prints it. */
  readonly holds: string;
}

/**
 * The tables the server owns and the copy moves, in the order they are written. `app_meta` holds facts about the
 * app database itself (when it was made); the target's migrations write their own, which the source's replace.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'app_meta', kind: 'meta', holds: 'facts about the app database' },
  { name: 'saved_views', kind: 'data', holds: 'saved views' },
  { name: 'notebooks', kind: 'data', holds: 'notebooks' },
  { name: 'notes', kind: 'data', holds: 'notes' },
  { name: 'cells', kind: 'data', holds: 'cells of notebooks and notes' },
];

/** Tables of an app database the copy leaves alone, and why. */
export const TABLES_NOT_COPIED: Readonly<Record<string, string>> = {
  migrations: "TypeORM's record of the migrations run, written by the target's own migrations",
  [WINDOWS_TABLE]: 'per-minute counters of the running instances (PostgreSQL only), made again on use',
  [LEASES_TABLE]: 'export leases of the running instances (PostgreSQL only), made again on use',
};

/** The table in which TypeORM records the migrations it ran. */
export const MIGRATIONS_TABLE = 'migrations';

/** `name` quoted as an SQL identifier; only plain lower-case names reach SQL text (names come from catalogs too). */
export function quoted(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unexpected identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}
