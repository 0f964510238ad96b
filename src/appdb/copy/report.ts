import { dataRows, describeData, type TargetState } from './inspection.js';
import { COPIED_TABLES } from './tables.js';

/** One table of a copy: its rows and the checksum over their canonical form on each side. */
export interface TableOutcome {
  readonly table: string;
  readonly rows: number;
  readonly sourceSha256: string;
  readonly targetSha256: string;
}

const figure = (n: number): string => n.toLocaleString('en-US');
const rowsOf = (n: number): string => `${figure(n)} ${n === 1 ? 'row ' : 'rows'}`;
/** Checksums are compared whole; 16 hex digits are shown. */
const shortSum = (sha256: string): string => sha256.slice(0, 16);

/** What a dry run prints: both ends, each table's rows, and what the target would lose. */
export function planLines(from: string, to: string, counts: ReadonlyMap<string, number>, target: TargetState, replace: boolean): string[] {
  const width = Math.max(...COPIED_TABLES.map((t) => t.name.length));
  const total = COPIED_TABLES.reduce((sum, t) => sum + (counts.get(t.name) ?? 0), 0);
  const lines = [`dry run, nothing written: ${from} -> ${to}`];
  for (const table of COPIED_TABLES) lines.push(`  ${table.name.padEnd(width)} ${rowsOf(counts.get(table.name) ?? 0).padStart(15)}  ${table.holds}`);
  lines.push(`would copy ${rowsOf(total).trim()}`);
  if (!target.exists || target.standing.kind === 'none') lines.push(`the target is new: the server's migrations would make its tables`);
  else if (target.standing.kind === 'older') lines.push(`the target's schema is older: the server's migrations would bring it up to date`);
  if (dataRows(target.counts) === 0) {
    if (target.exists && target.standing.kind !== 'none') lines.push('the target holds no data');
  } else if (replace) lines.push(`--replace would delete what the target holds: ${describeData(target.counts)}`);
  else lines.push(`the target holds data (${describeData(target.counts)}): refused without --replace`);
  return lines;
}

/** What a copy prints once committed: per table its rows and both checksums, then the total and the rate. */
export function outcomeLines(from: string, to: string, tables: readonly TableOutcome[], ms: number): string[] {
  const width = Math.max(5, ...tables.map((t) => t.table.length));
  const rows = tables.reduce((sum, t) => sum + t.rows, 0);
  const lines = [`copied ${from} -> ${to}`, `  ${'table'.padEnd(width)} ${'rows'.padStart(10)}  source sha256     target sha256`];
  for (const t of tables) lines.push(`  ${t.table.padEnd(width)} ${figure(t.rows).padStart(10)}  ${shortSum(t.sourceSha256)}  ${shortSum(t.targetSha256)}`);
  const seconds = ms / 1000;
  lines.push(`${figure(rows)} rows in ${seconds.toFixed(2)} s (${figure(Math.round(rows / Math.max(seconds, 0.001)))} rows/s); every table's count and checksum agree`);
  return lines;
}
