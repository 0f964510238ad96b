import type { CellOwnerKind } from '../appdb/cell.entity.js';
import type { AppDbManager, UnitOfWork } from '../appdb/unit-of-work.js';

/**
 * What users write on the app database: a tenant's notebook (id = tenant ID), a note or a saved view. A notebook
 * and a note hold cells (see cell-store.ts).
 */
export interface DocumentRef {
  kind: CellOwnerKind | 'view';
  id: string;
}

/** A document's row: when it last changed, and its revision (part of its entity tag). */
export interface Revised {
  updatedAt: string;
  revision: number;
}

/**
 * Records a change of the document on its row in memory, `updated_at` and the next revision, and answers the
 * columns to write (inside the write unit, with whatever else changed).
 */
export function nextRevision(row: Revised, now: Date): Revised {
  row.updatedAt = now.toISOString();
  row.revision += 1;
  return { updatedAt: row.updatedAt, revision: row.revision };
}

/**
 * The one place a change of a notebook, a note or a saved view is committed: each write is one unit of work under
 * the document's lock, so the writes to one document wait for the ones before it (see unit-of-work.ts).
 */
export class DocumentWrites {
  constructor(
    private readonly units: UnitOfWork,
    /** The time that stamps what is written, in ms since the epoch. */
    private readonly now: () => number,
  ) {}

  /** Reads in one unit of work (no lock). */
  read<T>(work: (m: AppDbManager) => Promise<T>): Promise<T> {
    return this.units.read(work);
  }

  /** Runs `work` as one write unit under the document's lock; `now` stamps what it writes. */
  write<T>(document: DocumentRef, work: (m: AppDbManager, now: Date) => Promise<T>): Promise<T> {
    return this.units.write(`${document.kind}:${document.id}`, (m) => work(m, new Date(this.now())));
  }
}
