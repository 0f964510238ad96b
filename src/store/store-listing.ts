import { ListingError, ObjectStoreError, toObjectStoreError, type ObjectStore, type StoredObject } from './object-store.js';

/** A listing that takes longer than this counts as the store being unreachable. */
export const LIST_TIMEOUT_MS = 30_000;

/**
 * What one listing of a prefix gave: every object (`complete`), or the objects of the pages that arrived before
 * one failed (`error` says which), or nothing at all (`error`, no object).
 */
export interface Listing {
  objects: readonly StoredObject[];
  complete: boolean;
  /** For clients: what failed, naming no host, bucket or key. */
  error: string | null;
  /** For the log: the same with the store's own words (bucket, prefix, errno). */
  detail: string | null;
}

/**
 * Lists `prefix` within LIST_TIMEOUT_MS. A listing that fails part-way keeps the objects of the pages that arrived,
 * except those of the last tenant folder among them, whose other files may be on the page that failed (a listing
 * is in key order: `kls.sqlite` before `sis.sqlite`).
 */
export async function listPrefix(objects: ObjectStore, prefix: string): Promise<Listing> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ObjectStoreError(`the listing took longer than ${LIST_TIMEOUT_MS / 1000} s`, `listing of "${prefix}" took longer than ${LIST_TIMEOUT_MS / 1000} s`)), LIST_TIMEOUT_MS);
  });
  try {
    return { objects: await Promise.race([objects.list(prefix), timeout]), complete: true, error: null, detail: null };
  } catch (err) {
    if (err instanceof ListingError) {
      const kept = withoutLastFolder(err.objects);
      const keptNote = `the ${kept.length} objects listed before stay known, none is removed`;
      return { objects: kept, complete: false, error: `object store listing incomplete: ${err.message}; ${keptNote}`, detail: `object store listing incomplete: ${err.detail}; ${keptNote}` };
    }
    const failed = toObjectStoreError(err, 'listing failed');
    return { objects: [], complete: false, error: `object store unreachable: ${failed.message}`, detail: `object store unreachable: ${failed.detail}` };
  } finally {
    clearTimeout(timer);
  }
}

/** The objects without those in the folder of the last key (`<prefix><pack>/<slug>/`). */
function withoutLastFolder(objects: readonly StoredObject[]): StoredObject[] {
  const last = objects[objects.length - 1];
  if (last === undefined) return [];
  const folder = last.key.slice(0, last.key.lastIndexOf('/') + 1);
  if (folder === '') return [...objects]; // a key outside every tenant folder
  return objects.filter((object) => !object.key.startsWith(folder));
}
