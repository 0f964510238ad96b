import fs from 'node:fs';
import path from 'node:path';
import { maskedText } from '../../common/secrets.js';
import type { CopyConnection } from './connection.js';
import { endpointProblem, type AppDbEndpoint } from './endpoints.js';
import { CopyFailure, CopyInterrupted, CopyRefusal, oneLine } from './failures.js';
import { dataRows, describeData, holdsData, inspectTarget, openSource, type OpenSource } from './inspection.js';
import { NO_PROGRESS, type CopyProgress } from './progress.js';
import { outcomeLines, planLines, type TableOutcome } from './report.js';
import { TableDigest, type TableShape } from './rows.js';
import { shapeDifference, tableCounts, tableShapes } from './schema.js';
import { COPIED_TABLES } from './tables.js';
import { openTargetWriter, type TargetWriter } from './target-writer.js';

/** What to copy where. */
export interface CopyRequest {
  readonly from: AppDbEndpoint;
  readonly to: AppDbEndpoint;
  /** Replace the data the target holds (else a target holding data is refused). */
  readonly replace: boolean;
  /** Look at both ends and say what would be copied; write nothing. */
  readonly dryRun: boolean;
}

/** Where the copy reports, and what stops it. */
export interface CopyIo {
  /** A line of what the copy did or would do (standard output). */
  out(line: string): void;
  /** A line the operator must not miss: what `--replace` deletes (standard error). */
  warn(line: string): void;
  readonly progress?: CopyProgress;
  /** Aborted (SIGINT, SIGTERM: the reason names the signal): the copy rolls back at its next batch and ends with CopyInterrupted. */
  readonly signal?: AbortSignal;
}

/** How the copy reads and writes: rows per batch, and how long it waits for the target's write lock. */
export interface CopySettings {
  readonly batchSize: number;
  readonly lockWaitMs: number;
}

const DEFAULT_SETTINGS: CopySettings = { batchSize: 1000, lockWaitMs: 10_000 };

/** What a copy did: per table (empty after a dry run), all rows, and how long the copy's transaction took. */
export interface CopyOutcome {
  readonly dryRun: boolean;
  readonly tables: readonly TableOutcome[];
  readonly rows: number;
  /** From the target's write transaction to its commit: deletes, inserts, verification. */
  readonly ms: number;
}

/**
 * Copies every row of every table the server owns from one app database into another (docs/deployment.md). The
 * source is read in one snapshot; the target's schema is made or brought up to date by the server's own migrations,
 * and its rows are replaced, written and verified (counts and checksums against the source's), all in one
 * transaction, committed only when they agree. Ends with CopyRefusal (nothing written), CopyFailure or
 * CopyInterrupted (rolled back: the target is as it was, a SQLite file the copy made is removed).
 */
export async function copyAppDatabase(request: CopyRequest, io: CopyIo, settings: CopySettings = DEFAULT_SETTINGS): Promise<CopyOutcome> {
  const { from, to } = request;
  if (to.config.kind === 'sqlite') refuseMissingFolder(to, to.config.path);
  const source = await openSource(from);
  try {
    const target = await inspectTarget(to);
    if (target.identity === source.identity) throw new CopyRefusal(`--from and --to name the same database (${from.shown}, ${to.shown})`);
    if (request.dryRun) for (const line of planLines(from.shown, to.shown, source.counts, target, request.replace)) io.out(line);
    if (dataRows(target.counts) > 0 && !request.replace) throw holdsData(to, target.counts);
    if (request.dryRun) return { dryRun: true, tables: [], rows: 0, ms: 0 };
    await abortWhenAsked(io.signal);
    const made = to.config.kind === 'sqlite' && !target.exists ? makeNewFile(to, to.config.path) : null;
    if (made !== null) uncommittedFiles.add(made);
    let writer: TargetWriter;
    let opened: string | null;
    try {
      writer = await openTargetWriter(to);
      opened = to.config.kind === 'sqlite' ? fileIdentity(to.config.path) : null;
    } catch (err) {
      removeMadeFile(made);
      throw new CopyRefusal(endpointProblem(to, 'cannot open', err));
    }
    let committed = false;
    try {
      const outcome = await copyInto(writer, request, source, io, settings, opened);
      committed = true;
      return outcome;
    } finally {
      // before anything that lets a second signal in: a committed file is never removed
      if (made !== null) uncommittedFiles.delete(made);
      await writer.close();
      if (!committed) removeMadeFile(made);
    }
  } finally {
    await source.close();
  }
}

/**
 * A CopyRefusal when the SQLite target's folder is missing (it is not made, a mistyped path would go unseen) or the
 * target is a symbolic link to no file.
 */
function refuseMissingFolder(to: AppDbEndpoint, file: string): void {
  const folder = path.dirname(file);
  let isFolder = false;
  try {
    isFolder = fs.statSync(folder).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new CopyRefusal(`the target ${to.shown}: its folder ${folder} does not exist (it is not made: make it first)`);
  // a link to no file: the copy would make the file it points to, and a copy that does not commit would remove the
  // link, not that file
  let dangling = false;
  try {
    dangling = fs.lstatSync(file).isSymbolicLink() && !fs.existsSync(file);
  } catch {
    dangling = false;
  }
  if (dangling) throw new CopyRefusal(`the target ${to.shown} is a symbolic link to a file that does not exist (name the file itself)`);
}

/**
 * Makes the new SQLite target file, empty, and answers its path; null when it exists by now (another copy made it
 * since the target was looked at): only the copy that made a file removes it, never one that found it.
 */
function makeNewFile(to: AppDbEndpoint, file: string): string | null {
  try {
    fs.closeSync(fs.openSync(file, 'wx'));
    return file;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw new CopyRefusal(endpointProblem(to, 'cannot make', err));
  }
}

/** The file's device and inode, null when it is not there. */
function fileIdentity(file: string): string | null {
  try {
    const stat = fs.statSync(file, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

/** New SQLite files a copy running in this process has made and not yet committed. */
const uncommittedFiles = new Set<string>();

/**
 * Removes the new SQLite files of copies still running, for a process that ends at once (a second SIGINT) and
 * cannot wait for their rollback: what they wrote was never committed.
 */
export function removeUncommittedFiles(): void {
  for (const file of uncommittedFiles) removeMadeFile(file);
}

/** Removes the SQLite file (and its journals) the copy made for a new target that it did not commit. */
function removeMadeFile(file: string | null): void {
  if (file === null) return;
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** SQLSTATE and SQLite codes of a target that refuses writes: read-only (a standby, a read-only file or role) or without the privilege. */
const READ_ONLY_CODES = new Set(['25006', '42501', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_READONLY_RECOVERY', 'SQLITE_READONLY_ROLLBACK', 'SQLITE_CANTOPEN', 'SQLITE_PERM']);
/** What a target that refuses writes lacks. */
const WRITABLE = 'a writable database and a role that may create tables are needed';
/** Codes of a lock wait that ran out: PostgreSQL lock_not_available, SQLite busy. */
const LOCK_CODES = new Set(['55P03', 'SQLITE_BUSY']);

/** The driver's error code (TypeORM's QueryFailedError carries it, or its driverError does). */
function errorCode(err: unknown): string {
  const { code, driverError } = (err ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  return String(code ?? driverError?.code ?? '');
}

/**
 * Begins the target's transaction, runs the migrations it lacks and locks its tables: a CopyRefusal when it waited
 * past `lockWaitMs` or refuses writes, a CopyFailure when a migration failed (all of it rolled back).
 */
async function beginTarget(writer: TargetWriter, to: AppDbEndpoint, settings: CopySettings): Promise<void> {
  const target = writer.connection;
  try {
    await target.beginWrite(settings.lockWaitMs);
    await writer.migrate();
    await target.lockTables(COPIED_TABLES.map((t) => t.name));
  } catch (err) {
    await target.rollback();
    const code = errorCode(err);
    if (LOCK_CODES.has(code)) throw new CopyRefusal(`${endpointProblem(to, 'cannot lock', err)} (no write lock within ${settings.lockWaitMs / 1000} s: stop the servers on it first)`);
    if (READ_ONLY_CODES.has(code)) throw new CopyRefusal(`${endpointProblem(to, 'cannot write', err)} (nothing written: ${WRITABLE})`);
    throw new CopyFailure(`${endpointProblem(to, 'the migrations failed on', err)}; rolled back, the target is as it was`);
  }
}

async function copyInto(writer: TargetWriter, request: CopyRequest, source: OpenSource, io: CopyIo, settings: CopySettings, opened: string | null): Promise<CopyOutcome> {
  const { to } = request;
  const target = writer.connection;
  await beginTarget(writer, to, settings);
  const started = performance.now();
  try {
    // a SQLite file removed or replaced while the copy waited for its lock (another copy that made it and failed):
    // what the copy wrote would go into a file no path names
    if (to.config.kind === 'sqlite' && fileIdentity(to.config.path) !== opened) {
      throw new CopyRefusal(`the target ${to.shown} was removed or replaced while the copy waited for it; nothing written`);
    }
    const difference = shapeDifference(source.shapes, await tableShapes(target, `the target ${to.shown}`));
    if (difference !== null) throw difference;
    const before = await tableCounts(target, COPIED_TABLES.map((t) => t.name));
    if (dataRows(before) > 0) {
      if (!request.replace) throw holdsData(to, before);
      io.warn(`--replace: deleting what the target holds (${describeData(before)}), in the copy's transaction`);
    }
    for (const table of [...COPIED_TABLES].reverse()) await target.deleteAll(table.name);
    const sourceDigests = new Map<string, { rows: number; sha256: string }>();
    for (const shape of source.shapes) {
      sourceDigests.set(shape.name, await copyTable(shape, source, target, io, settings));
      await target.continueSequences(shape.name);
    }
    const tables = await verify(source.shapes, sourceDigests, target, io, settings);
    await abortWhenAsked(io.signal);
    await target.commit();
    const outcome: CopyOutcome = { dryRun: false, tables, rows: tables.reduce((sum, t) => sum + t.rows, 0), ms: performance.now() - started };
    for (const line of outcomeLines(request.from.shown, to.shown, tables, outcome.ms)) io.out(line);
    return outcome;
  } catch (err) {
    await target.rollback();
    // a SQLite file that opens for writing but refuses the first write (a read-only file with no migration to run,
    // a file moved away): nothing was written, as when the migrations meet a read-only target
    if (READ_ONLY_CODES.has(errorCode(err))) throw new CopyRefusal(`${endpointProblem(to, 'cannot write', err)} (nothing written: ${WRITABLE})`);
    if (err instanceof CopyFailure) throw new CopyFailure(`${err.message}; rolled back, the target is as it was`);
    if (err instanceof CopyRefusal || err instanceof CopyInterrupted) throw err;
    throw new CopyFailure(`the copy failed and was rolled back, the target is as it was: ${maskedText(oneLine(err), [...request.from.secrets, ...to.secrets])}`);
  }
}

/** Copies one table's rows in key order, digesting them as they are read: the source's count and checksum. */
async function copyTable(shape: TableShape, source: OpenSource, target: CopyConnection, io: CopyIo, settings: CopySettings): Promise<{ rows: number; sha256: string }> {
  const progress = io.progress ?? NO_PROGRESS;
  const digest = new TableDigest(shape);
  const total = source.counts.get(shape.name) ?? 0;
  let done = 0;
  progress.begin('copying', shape.name, total);
  for await (const batch of source.connection.rowsInKeyOrder(shape, settings.batchSize)) {
    await abortWhenAsked(io.signal);
    for (const row of batch) digest.add(row);
    await target.insert(shape, batch);
    done += batch.length;
    progress.advance(done);
  }
  progress.end();
  const result = digest.result();
  if (result.rows !== total) throw new CopyFailure(`the source's ${shape.name} held ${total} rows when counted and ${result.rows} when read`);
  return result;
}

/** Reads every table back from the target (inside the copy's transaction) and compares its count and checksum with the source's. */
async function verify(
  shapes: readonly TableShape[],
  sourceDigests: ReadonlyMap<string, { rows: number; sha256: string }>,
  target: CopyConnection,
  io: CopyIo,
  settings: CopySettings,
): Promise<TableOutcome[]> {
  const progress = io.progress ?? NO_PROGRESS;
  const outcomes: TableOutcome[] = [];
  for (const shape of shapes) {
    const expected = sourceDigests.get(shape.name)!;
    const digest = new TableDigest(shape);
    let done = 0;
    progress.begin('verifying', shape.name, expected.rows);
    for await (const batch of target.rowsInKeyOrder(shape, settings.batchSize)) {
      await abortWhenAsked(io.signal);
      for (const row of batch) digest.add(row);
      done += batch.length;
      progress.advance(done);
    }
    progress.end();
    const written = digest.result();
    if (written.rows !== expected.rows || written.sha256 !== expected.sha256) {
      throw new CopyFailure(
        `${shape.name} differs after writing (source ${expected.rows} rows, sha256 ${expected.sha256.slice(0, 16)}; target ${written.rows} rows, sha256 ${written.sha256.slice(0, 16)})`,
      );
    }
    outcomes.push({ table: shape.name, rows: written.rows, sourceSha256: expected.sha256, targetSha256: written.sha256 });
  }
  return outcomes;
}

/**
 * A CopyInterrupted when `signal` is aborted, checked after a turn of the event loop: a copy between two SQLite
 * files reads and writes synchronously, and without the turn the signal's handler would run only once it committed.
 */
async function abortWhenAsked(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw new CopyInterrupted(signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
}
