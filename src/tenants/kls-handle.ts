import Database from 'better-sqlite3';

/**
 * One open, read-only connection to one generation of a tenant's KLS file.
 * Requests lease it; after a swap the old handle is retired and closed once the last lease ends,
 * so requests in flight finish on the file they started with.
 */
export class KlsHandle {
  private leases = 0;
  private retired = false;
  private closed = false;

  private constructor(
    readonly db: Database.Database,
    readonly generation: number,
  ) {}

  /** Opens `file` read-only; throws when it is not a readable SQLite database. */
  static open(file: string, generation: number): KlsHandle {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('query_only = ON');
      // Reading the schema proves the file is SQLite and not damaged at its start.
      db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    } catch (err) {
      db.close();
      throw err;
    }
    return new KlsHandle(db, generation);
  }

  lease(): () => void {
    this.leases += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leases -= 1;
      this.closeIfDrained();
    };
  }

  /** Marks the handle as replaced; it closes when no lease is left. */
  retire(): void {
    this.retired = true;
    this.closeIfDrained();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private closeIfDrained(): void {
    if (this.retired && this.leases === 0 && !this.closed) {
      this.closed = true;
      this.db.close();
    }
  }
}
