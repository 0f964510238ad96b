import fs from 'node:fs';
import Database from 'better-sqlite3';

/** What was on disk when a file was opened; a different stamp means the file was replaced. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export const stampOf = (stat: fs.Stats): FileStamp => ({ size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino });

/**
 * Page cache of one KLS connection, in KiB (`PRAGMA cache_size`). better-sqlite3 builds SQLite with 16 MB per
 * connection; the reads a request makes (a summary, a lookup, a taxonomy page) stay in a few hundred pages, and
 * pages missed here come from the operating system's file cache. With TENANT_HANDLES_MAX connections the total
 * stays at TENANT_HANDLES_MAX × this (32 × 1 MiB by default).
 */
export const KLS_CACHE_KIB = 1024;

/** Told when connections open, are used, fall idle and close: the pool that bounds how many are open. */
export interface ConnectionTracker {
  /** A connection was opened (counted; idle ones may be closed to make room). */
  opened(handle: KlsHandle): void;
  /** A lease was taken: the handle is the most recently used. */
  used(handle: KlsHandle): void;
  /** The last lease ended. */
  idle(handle: KlsHandle): void;
  /** The connection was closed. */
  closed(handle: KlsHandle): void;
}

/** Trackers of handles that count nothing (tests, tools). */
export const UNTRACKED: ConnectionTracker = { opened: () => {}, used: () => {}, idle: () => {}, closed: () => {} };

/**
 * One generation of a tenant's KLS file and the read-only connection that serves it. Requests lease it; the
 * connection may be closed while no lease holds it (evicted: too many open) and is opened again by the next
 * lease, on the same file (the caller checks the path still names it). After a swap the handle is retired and
 * its connection closes once the last lease ends, so requests in flight finish on the file they started with.
 */
export class KlsHandle {
  private connection: Database.Database | null;
  private leases = 0;
  private retired = false;
  /**
   * Set when the path no longer names this generation's file but the handle stays in service (its replacement
   * did not open): its connection is then the only way to the file and is not evicted.
   */
  pinned = false;

  private constructor(
    readonly file: string,
    readonly generation: number,
    /** The file this generation serves, as it was when first opened. */
    readonly stamp: FileStamp,
    connection: Database.Database,
    private readonly tracker: ConnectionTracker,
  ) {
    this.connection = connection;
  }

  /** Opens `file` read-only; throws when it is not a readable SQLite database. `stat` describes the file opened. */
  static open(file: string, generation: number, stat: fs.Stats, tracker: ConnectionTracker = UNTRACKED): KlsHandle {
    const handle = new KlsHandle(file, generation, stampOf(stat), connect(file), tracker);
    tracker.opened(handle);
    return handle;
  }

  /** The open connection; only valid under a lease (or right after open, before any other handle opens). */
  get db(): Database.Database {
    if (this.connection === null) throw new Error(`the connection of ${this.file} (generation ${this.generation}) is closed`);
    return this.connection;
  }

  /** True while a connection is open (leased, idle, or retired and draining). */
  get isOpen(): boolean {
    return this.connection !== null;
  }

  /** True once the handle is retired and its connection closed: this generation serves nothing any more. */
  get isClosed(): boolean {
    return this.retired && this.connection === null;
  }

  get isRetired(): boolean {
    return this.retired;
  }

  /** Leases in flight. */
  get leaseCount(): number {
    return this.leases;
  }

  /**
   * Takes a lease; reopens the connection when it was evicted, and throws when that fails or the path now names
   * another file. The lease is counted before the connection opens, so the pool never closes it under the caller.
   * The returned function ends the lease (once).
   */
  lease(): () => void {
    if (this.retired) throw new Error(`generation ${this.generation} of ${this.file} is retired`);
    this.leases += 1;
    if (this.connection === null) {
      try {
        this.reopen();
      } catch (err) {
        this.leases -= 1;
        throw err;
      }
    }
    this.tracker.used(this);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leases -= 1;
      if (this.leases > 0) return;
      if (this.retired) this.close();
      else this.tracker.idle(this);
    };
  }

  /** Closes the connection when nothing holds it (no lease, not pinned); true when it was closed. */
  evict(): boolean {
    if (this.leases > 0 || this.pinned || this.connection === null) return false;
    this.close();
    return true;
  }

  /** Marks the handle as replaced; its connection closes when no lease is left. */
  retire(): void {
    this.retired = true;
    if (this.leases === 0) this.close();
  }

  private reopen(): void {
    const db = connect(this.file);
    // the path may have been renamed over between the caller's check and the open: serve only this file
    let ino: number | null = null;
    try {
      ino = fs.statSync(this.file).ino;
    } catch {
      ino = null;
    }
    if (ino !== this.stamp.ino) {
      db.close();
      throw new Error(`${this.file} was replaced`);
    }
    this.connection = db;
    this.tracker.opened(this);
  }

  private close(): void {
    if (this.connection === null) return;
    const db = this.connection;
    this.connection = null;
    db.close();
    this.tracker.closed(this);
  }
}

/**
 * The tables of a KLS file (docs/kls-format.md). Each is optional, but a file with none of them is some other
 * SQLite database (uploaded under the wrong key, or empty): served, it would answer every read with nothing.
 */
export const KLS_TABLES = [
  'meta',
  'tenant_logo',
  'build_info',
  'findings',
  'search_items',
  'gold_tables',
  'taxonomies',
  'taxonomy_nodes',
  'taxonomy_members',
  'dimensions',
  'pipeline_artifacts',
  'report_pdfs',
] as const;

const COUNT_KLS_TABLES = `SELECT count(*) AS n FROM sqlite_master WHERE type IN ('table', 'view') AND name IN (${KLS_TABLES.map((t) => `'${t}'`).join(', ')})`;

/**
 * A read-only connection with a bounded page cache; throws when `file` is not a readable SQLite database, or one
 * without any of the KLS tables.
 */
function connect(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    db.pragma(`cache_size = -${KLS_CACHE_KIB}`);
    // Reading the schema proves the file is SQLite and not damaged at its start.
    const { n } = db.prepare(COUNT_KLS_TABLES).get() as { n: number };
    if (n === 0) throw new Error(`not a KLS file: it has none of the KLS tables (${KLS_TABLES.slice(0, 4).join(', ')}, …)`);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
