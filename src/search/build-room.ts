/** Room on disk for one sidecar build (store mode with a bounded cache): the build writes at most `bytes` and asks for more first. */
export interface BuildRoom {
  readonly bytes: number;
  /** Raises the room to `bytes`; false when there is none (the build then stops where its file is full). */
  grow(bytes: number): boolean;
  release(): void;
}

/** Room a build claims first, per byte of the KLS file it reads (at least 256 KiB); it grows as the sidecar does. */
const ROOM_PER_KLS_BYTE = 0.5;
const MIN_ROOM_BYTES = 256 * 1024;

/** The room a sidecar build over a KLS file of `klsBytes` claims first. */
export const indexRoomFor = (klsBytes: number): number => Math.max(MIN_ROOM_BYTES, Math.ceil(klsBytes * ROOM_PER_KLS_BYTE));

/** Where sidecar builds get their room: the bounded store cache, which counts the sidecars beside the tenant files. */
export interface SidecarSpace {
  /** Room for a build in the tenant's folder, at least `bytes`; null when the cache has none now (the build fails). */
  claim(compositeId: string, bytes: number): BuildRoom | null;
  /** The tenant's folder changed (a sidecar renamed into place or deleted): count it again. */
  changed(compositeId: string): void;
}

/** What a build writes through: the sidecar's connection (better-sqlite3's `pragma`). */
interface PragmaConnection {
  pragma(source: string, options?: { simple: boolean }): unknown;
}

/**
 * Runs the writing steps of a sidecar build within `room` (null: no bound, each step as it comes). The file is
 * bounded by the room (SQLite's `max_page_count`); before each step the room is grown to leave `margin` free, and a
 * step that finds the file full (SQLITE_FULL; it was rolled back) is run again with twice the room, until the room
 * cannot grow: then its error is thrown. A step must be one statement or one transaction, and the connection able
 * to roll it back (not `journal_mode=OFF`).
 */
export function stepsWithin(db: PragmaConnection, room: BuildRoom | null): (step: () => void) => void {
  if (room === null) return (step) => step();
  const margin = room.bytes;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const bound = (): void => {
    db.pragma(`max_page_count = ${Math.max(1, Math.floor(room.bytes / pageSize))}`);
  };
  const held = (): number => (db.pragma('page_count', { simple: true }) as number) * pageSize;
  bound();
  return (step) => {
    if (room.bytes - held() < margin && room.grow(held() + 2 * margin)) bound();
    for (;;) {
      try {
        step();
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_FULL' || !room.grow(Math.max(room.bytes, held()) * 2)) throw err;
        bound();
      }
    }
  };
}
