import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import type { Count } from '../metrics/metrics.js';
import type { TenantRegistry } from '../tenants/registry.js';
import { setTenantState, type TenantEntry } from '../tenants/tenants.js';
import { checkSqliteFile, isCachedCopy, recordCachedObject, tempPathFor } from './cache-files.js';
import type { Reservation } from './cache-budget.js';
import type { ListedTenant, TenantFileName } from './layout.js';
import { describeFailure, isUnanswered, ObjectChangedError, ObjectStoreError, type ObjectStore, type StoredObject } from './object-store.js';
import { StoreStoppedError } from './store-transport.js';

/** Bytes of a tenant's running transfer, and when it began (ms, performance.now()). */
export interface TransferProgress {
  bytesDone: number;
  bytesTotal: number;
  startedMs: number;
}

/** What one tenant's sync needs. */
export interface TenantDownloadContext {
  readonly registry: TenantRegistry;
  readonly objects: ObjectStore;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** Running transfers by composite ID (read by store-status). */
  readonly progress: Map<string, TransferProgress>;
  /** Runs a transfer within the STORE_CONCURRENCY bound. */
  readonly limited: <T>(task: () => Promise<T>) => Promise<T>;
  /** Sets aside room in the cache for `bytes` written into the tenant's folder before the first of them (a bounded cache waits for it). */
  readonly reserve: (compositeId: string, bytes: number) => Promise<Reservation>;
  /** Counts the tenant's folder again once the transfer's files are in place (before its room is given back). */
  readonly settle: (entry: TenantEntry) => void;
  /** Bytes received from the store (metrics). */
  readonly downloadedBytes: Count;
}

/**
 * How a tenant's sync ended: nothing to transfer (`current`), new files in service (`installed`, with the bytes
 * transferred), a failure that may pass (`failed`: the store away, the disk full, no room), an object that fails its
 * checks while the store keeps it (`broken`), or the store holding other objects than those listed (`changed`: list
 * again).
 */
export type SyncOutcome =
  | { kind: 'current' }
  | { kind: 'installed'; bytes: number }
  | { kind: 'failed' | 'broken' | 'changed'; error: string; detail: string };

/** Room a cache without bound gives: no waiting, nothing counted. */
export const UNBOUNDED_ROOM = (_compositeId: string, bytes: number): Promise<Reservation> =>
  Promise.resolve({ bytes, grow: () => true, release: () => {} });

/** Room for the manifest rewritten beside a download (its temporary copy and the new file). */
const MANIFEST_ROOM = 4096;

const hasLiveHandle = (entry: TenantEntry): boolean => entry.handle !== null && !entry.handle.isClosed;

/** A downloaded file is no SQLite database, while the store keeps the object: it will not pass by trying again. */
class CheckFailed extends Error {}

/** The store sent fewer bytes than it announced. */
class IncompleteDownload extends Error {}

/**
 * Brings one listed tenant's cached files up to date. A file whose object ETag and size match the cached copy
 * is not transferred; a new `kls.sqlite` is downloaded to a temporary file, checked, renamed over the old one
 * and swapped in (generation + 1). Failures leave the tenant in status `error` with the previous file in service.
 */
export async function syncTenantFiles(ctx: TenantDownloadContext, listed: ListedTenant): Promise<SyncOutcome> {
  const entry = ctx.registry.ensureEntry(listed.pack, listed.slug);
  const sisPath = path.join(entry.dir, 'sis.sqlite');
  const klsCurrent = hasLiveHandle(entry) && isCachedCopy(entry.dir, 'kls.sqlite', listed.kls);
  const sisCurrent = listed.sis === null || isCachedCopy(entry.dir, 'sis.sqlite', listed.sis);
  if (listed.sis === null && fs.existsSync(sisPath)) {
    fs.rmSync(sisPath, { force: true });
    recordCachedObject(entry.dir, 'sis.sqlite', null);
  }
  entry.hasSis = fs.existsSync(sisPath);
  if (klsCurrent) keepStoreMtime(entry.klsPath, listed.kls.lastModified);
  if (klsCurrent && sisCurrent) {
    setTenantState(entry, 'ready', null);
    return { kind: 'current' };
  }
  const transfers: Array<{ name: TenantFileName; object: StoredObject }> = [];
  if (!klsCurrent) transfers.push({ name: 'kls.sqlite', object: listed.kls });
  if (!sisCurrent && listed.sis !== null) transfers.push({ name: 'sis.sqlite', object: listed.sis });
  const bytesTotal = transfers.reduce((sum, t) => sum + t.object.size, 0);

  const outcome = await ctx.limited(async (): Promise<SyncOutcome> => {
    if (ctx.signal.aborted) return { kind: 'failed', error: 'stopped: the server shuts down', detail: 'download stopped (shutdown)' };
    const progress: TransferProgress = { bytesDone: 0, bytesTotal, startedMs: performance.now() };
    ctx.progress.set(entry.compositeId, progress);
    setTenantState(entry, 'downloading', null);
    let room: Reservation | null = null;
    try {
      room = await ctx.reserve(entry.compositeId, bytesTotal + MANIFEST_ROOM);
      let finished = 0;
      for (const transfer of transfers) {
        await transferFile(ctx, entry, transfer.name, transfer.object, (done) => {
          progress.bytesDone = finished + done;
        });
        finished += transfer.object.size;
        progress.bytesDone = finished;
      }
      entry.hasSis = fs.existsSync(sisPath);
      setTenantState(entry, hasLiveHandle(entry) ? 'ready' : 'error', entry.error);
      return { kind: 'installed', bytes: bytesTotal };
    } catch (err) {
      const kind = err instanceof ObjectChangedError ? 'changed' : err instanceof CheckFailed ? 'broken' : 'failed';
      // the client's words (no key, address or errno) go to store-status and the tenant's 503; the log keeps the rest
      const error = err instanceof CheckFailed || err instanceof IncompleteDownload ? err.message : describeFailure(err);
      const detail = err instanceof ObjectStoreError ? err.detail : (err as Error).message;
      setTenantState(entry, 'error', error);
      if (kind !== 'changed') ctx.log.error({ tenant: entry.compositeId, err: detail }, 'tenant download failed; the previous file stays in service');
      return { kind, error, detail };
    } finally {
      ctx.progress.delete(entry.compositeId);
      // counted before the room goes back, so that the files are never counted by neither
      ctx.settle(entry);
      room?.release();
    }
  });
  // A tenant that vanished from the store while this ran is no longer listed: close what it opened.
  if (ctx.registry.get(entry.compositeId) !== entry) entry.handle?.retire();
  return outcome;
}

/** Downloads one object to a temporary file beside its target, checks it, renames it over the target (a swap for kls.sqlite). */
async function transferFile(
  ctx: TenantDownloadContext,
  entry: TenantEntry,
  name: TenantFileName,
  object: StoredObject,
  onBytes: (done: number) => void,
): Promise<void> {
  fs.mkdirSync(entry.dir, { recursive: true });
  const temp = tempPathFor(entry.dir, name);
  let counted = 0;
  try {
    let received;
    try {
      received = await ctx.objects.download(
        object,
        temp,
        (done) => {
          ctx.downloadedBytes.inc(done - counted);
          counted = done;
          onBytes(done);
        },
        ctx.signal,
      );
    } catch (err) {
      // a store that does not answer in time is not asked again; one that answered otherwise may hold another object
      if (!ctx.signal.aborted && !isUnanswered(err) && !(err instanceof ObjectChangedError)) await throwWhenChanged(ctx.objects, object);
      throw err;
    }
    const expected = received.announcedBytes ?? object.size;
    // the object listed, still there when its last byte arrived: a store that writes an object in place (s3rver)
    // could have sent parts of two
    await throwWhenChanged(ctx.objects, object);
    if (received.bytes !== expected) throw new IncompleteDownload(`${name}: incomplete download: ${received.bytes} of ${expected} bytes`);
    try {
      checkSqliteFile(temp, null);
    } catch (err) {
      // the cache's own file could not be read (it vanished, the disk failed): no verdict on the object, and its
      // path and errno are for the log
      if (typeof (err as NodeJS.ErrnoException).code === 'string') throw err;
      throw new CheckFailed(`${name}: ${(err as Error).message}`);
    }
    if (ctx.signal.aborted) throw new StoreStoppedError();
    // The object's time, not the download's: every instance then reports the same mtime for the same object.
    const lastModified = received.lastModified ?? object.lastModified ?? null;
    if (lastModified !== null) fs.utimesSync(temp, new Date(), lastModified);
    const target = path.join(entry.dir, name);
    fs.renameSync(temp, target);
    if (name === 'kls.sqlite' && !ctx.registry.install(entry, fs.statSync(target))) {
      throw new CheckFailed(entry.error ?? `${name}: the downloaded file does not open`);
    }
    recordCachedObject(entry.dir, name, { etag: received.etag, size: received.bytes });
    ctx.log.info({ tenant: entry.compositeId, file: name, bytes: received.bytes, generation: entry.generation }, 'tenant file downloaded');
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Throws ObjectChangedError when the store holds another object under the key than the one listed (a HEAD
 * request); nothing when the store does not answer (the caller's own failure, if any, is the one to report).
 */
async function throwWhenChanged(objects: ObjectStore, object: StoredObject): Promise<void> {
  let now: { etag: string; size: number };
  try {
    now = await objects.stat(object.key);
  } catch {
    return;
  }
  if (now.etag !== object.etag || now.size !== object.size) throw new ObjectChangedError(object.key, `listed ETag ${object.etag}, now ${now.etag}`);
}

/**
 * Gives a cached file that is not downloaded again its object's Last-Modified as mtime, when it has another one
 * (a copy cached by a build that kept the download time). The file in service is the same; only db-status sees it.
 */
function keepStoreMtime(file: string, lastModified: Date | undefined): void {
  if (lastModified === undefined) return;
  try {
    if (fs.statSync(file).mtimeMs !== lastModified.getTime()) fs.utimesSync(file, new Date(), lastModified);
  } catch {
    // the file vanished or cannot be changed: db-status reports what is on disk
  }
}
