import fs from 'node:fs';
import type { CopyConnection } from './connection.js';
import { connectTo, endpointProblem, type AppDbEndpoint } from './endpoints.js';
import { CopyRefusal } from './failures.js';
import type { TableShape } from './rows.js';
import { appliedMigrations, schemaStanding, sourceSchemaProblem, tableCounts, tableShapes, targetSchemaProblem, type SchemaStanding } from './schema.js';
import { COPIED_TABLES } from './tables.js';

/** The source, open in its read snapshot: its tables' shapes and row counts in that snapshot. */
export interface OpenSource {
  readonly connection: CopyConnection;
  readonly shapes: readonly TableShape[];
  readonly counts: ReadonlyMap<string, number>;
  /** What the database is (CopyConnection.identity). */
  readonly identity: string;
  /** Ends the snapshot and closes the connection. */
  close(): Promise<void>;
}

/**
 * Opens the source read-only and starts its snapshot (a server may go on writing it: the copy reads one consistent
 * state); a CopyRefusal when it cannot be read or is not an app database of this version.
 */
export async function openSource(from: AppDbEndpoint): Promise<OpenSource> {
  const connection = await connectTo(from, { readonly: true });
  const close = async (): Promise<void> => {
    await connection.rollback();
    await connection.close();
  };
  try {
    let tables: string[];
    let applied: string[] | null;
    let identity: string;
    try {
      identity = await connection.identity();
      await connection.beginSnapshot();
      tables = await connection.tableNames();
      applied = await appliedMigrations(connection);
    } catch (err) {
      throw new CopyRefusal(endpointProblem(from, 'cannot read', err));
    }
    const problem = sourceSchemaProblem(schemaStanding(applied), tables, from.shown);
    if (problem !== null) throw problem;
    const shapes = await tableShapes(connection, `the source ${from.shown}`);
    return { connection, shapes, counts: await tableCounts(connection, tables), identity, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** What the target holds before the copy: nothing yet (a SQLite file not there), or its schema's standing and row counts. */
export interface TargetState {
  readonly exists: boolean;
  /** What the database is (CopyConnection.identity); null for a SQLite file not there yet. */
  readonly identity: string | null;
  readonly standing: SchemaStanding;
  readonly counts: ReadonlyMap<string, number>;
}

/** Rows of tables with data (not `app_meta`) in `counts`. */
export function dataRows(counts: ReadonlyMap<string, number>): number {
  return COPIED_TABLES.filter((t) => t.kind === 'data').reduce((sum, t) => sum + (counts.get(t.name) ?? 0), 0);
}

/** `saved_views 3, cells 1,002`: the tables with data that hold rows. */
export function describeData(counts: ReadonlyMap<string, number>): string {
  return COPIED_TABLES.filter((t) => t.kind === 'data' && (counts.get(t.name) ?? 0) > 0)
    .map((t) => `${t.name} ${(counts.get(t.name) ?? 0).toLocaleString('en-US')}`)
    .join(', ');
}

/**
 * Looks at the target without writing it: a CopyRefusal when it cannot be reached, is not an app database or has a
 * newer schema.
 */
export async function inspectTarget(to: AppDbEndpoint): Promise<TargetState> {
  const empty = new Map(COPIED_TABLES.map((t) => [t.name, 0]));
  if (to.config.kind === 'sqlite' && !fs.existsSync(to.config.path)) return { exists: false, identity: null, standing: { kind: 'none' }, counts: empty };
  const connection = await connectTo(to, { readonly: true });
  try {
    let tables: string[];
    let applied: string[] | null;
    let counts: Map<string, number>;
    let identity: string;
    try {
      identity = await connection.identity();
      tables = await connection.tableNames();
      applied = await appliedMigrations(connection);
      counts = await tableCounts(connection, tables);
    } catch (err) {
      throw new CopyRefusal(endpointProblem(to, 'cannot read', err));
    }
    const standing = schemaStanding(applied);
    const problem = targetSchemaProblem(standing, tables, to.shown);
    if (problem !== null) throw problem;
    return { exists: true, identity, standing, counts };
  } finally {
    await connection.close();
  }
}

/** The refusal of a target that holds data, without `--replace`. */
export function holdsData(to: AppDbEndpoint, counts: ReadonlyMap<string, number>): CopyRefusal {
  return new CopyRefusal(`the target ${to.shown} holds data (${describeData(counts)}): nothing copied; --replace replaces it`);
}
