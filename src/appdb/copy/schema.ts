import { MIGRATIONS } from '../migrations/index.js';
import type { CopyConnection } from './connection.js';
import { CopyRefusal } from './failures.js';
import { columnKind, type Column, type TableShape } from './rows.js';
import { COPIED_TABLES, MIGRATIONS_TABLE, TABLES_NOT_COPIED, quoted } from './tables.js';

/** The names of the migrations this command (and the server of the same version) knows, oldest first. */
export function knownMigrations(): string[] {
  return MIGRATIONS.map((Migration) => new Migration().name);
}

/** Where a database's schema stands against this command's migrations. */
export type SchemaStanding =
  | { readonly kind: 'none' }
  | { readonly kind: 'current' }
  | { readonly kind: 'older'; readonly applied: number }
  | { readonly kind: 'newer'; readonly unknown: string };

/** The migrations the database records as run, oldest first; null when it has no table of them. */
export async function appliedMigrations(connection: CopyConnection): Promise<string[] | null> {
  if (!(await connection.tableNames()).includes(MIGRATIONS_TABLE)) return null;
  const rows = await connection.query(`SELECT name FROM ${quoted(MIGRATIONS_TABLE)} ORDER BY id`);
  return rows.map((r) => String(r['name']));
}

/** How `applied` stands against the known migrations. */
export function schemaStanding(applied: readonly string[] | null): SchemaStanding {
  if (applied === null) return { kind: 'none' };
  const known = knownMigrations();
  const unknown = applied.find((name) => !known.includes(name));
  if (unknown !== undefined) return { kind: 'newer', unknown };
  return known.every((name) => applied.includes(name)) ? { kind: 'current' } : { kind: 'older', applied: applied.length };
}

/** The refusal of a source that is not an app database of this version, or null when it is one. */
export function sourceSchemaProblem(standing: SchemaStanding, tables: readonly string[], shown: string): CopyRefusal | null {
  const missing = COPIED_TABLES.map((t) => t.name).filter((name) => !tables.includes(name));
  if (standing.kind === 'none' || missing.length > 0) {
    const lacks = standing.kind === 'none' ? MIGRATIONS_TABLE : missing.join(', ');
    return new CopyRefusal(`the source ${shown} is not an app database of this server (it has no table ${lacks})`);
  }
  if (standing.kind === 'newer') {
    return new CopyRefusal(`the source ${shown} has a newer schema than this command (migration ${standing.unknown} is unknown to it): copy with ads-appdb of the server version that last ran on it`);
  }
  if (standing.kind === 'older') {
    return new CopyRefusal(
      `the source ${shown} has an older schema (${standing.applied} of ${knownMigrations().length} migrations): start this version's server on it once (it migrates at start), then copy`,
    );
  }
  return null;
}

/** The refusal of a target whose tables are not (only) those of an app database of this version, or null. */
export function targetSchemaProblem(standing: SchemaStanding, tables: readonly string[], shown: string): CopyRefusal | null {
  if (standing.kind === 'newer') {
    return new CopyRefusal(`the target ${shown} has a newer schema than this command (migration ${standing.unknown} is unknown to it)`);
  }
  const ours = new Set([...COPIED_TABLES.map((t) => t.name), ...Object.keys(TABLES_NOT_COPIED)]);
  const foreign = tables.filter((name) => !ours.has(name));
  if (standing.kind === 'none' && foreign.length > 0) {
    return new CopyRefusal(`the target ${shown} holds tables but is not an app database (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}): name a new or empty database, or an app database`);
  }
  return null;
}

/** The shapes of the copied tables as the database's catalog has them; a CopyRefusal for a table or column the copy cannot move. */
export async function tableShapes(connection: CopyConnection, shown: string): Promise<TableShape[]> {
  const shapes: TableShape[] = [];
  for (const { name } of COPIED_TABLES) {
    const table = await connection.describe(name);
    if (table === null) throw new CopyRefusal(`${shown} has no table ${name}`);
    const columns: Column[] = table.columns.map((c) => {
      const kind = columnKind(c.type);
      if (kind === null) throw new CopyRefusal(`${shown}: column ${name}.${c.name} has type ${c.type}, which this command does not copy`);
      return { name: c.name, kind };
    });
    columns.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (table.key.length === 0) throw new CopyRefusal(`${shown}: table ${name} has no primary key`);
    shapes.push({ name, columns, key: table.key.map((k) => columns.find((c) => c.name === k)!) });
  }
  return shapes;
}

/** A CopyRefusal naming the first difference between the source's and the target's tables, or null when they match. */
export function shapeDifference(source: readonly TableShape[], target: readonly TableShape[]): CopyRefusal | null {
  const signature = (shape: TableShape): string =>
    `${shape.columns.map((c) => `${c.name} ${c.kind}`).join(', ')}; key ${shape.key.map((c) => c.name).join(', ')}`;
  for (const from of source) {
    const to = target.find((t) => t.name === from.name);
    if (to === undefined || signature(from) !== signature(to)) {
      return new CopyRefusal(`table ${from.name} differs between source (${signature(from)}) and target (${to === undefined ? 'missing' : signature(to)})`);
    }
  }
  return null;
}

/** How many rows each copied table holds (tables the database lacks hold none). */
export async function tableCounts(connection: CopyConnection, tables: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { name } of COPIED_TABLES) counts.set(name, tables.includes(name) ? await connection.count(name) : 0);
  return counts;
}
