import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import type { Count } from '../metrics/metrics.js';
import type { TenantRegistry } from '../tenants/registry.js';
import type { TenantEntry } from '../tenants/tenants.js';
import { checkSqliteFile, isCachedCopy, recordCachedObject, tempPathFor } from './cache-files.js';
import type { ListedTenant, TenantFileName } from './layout.js';
import type { ObjectStore, StoredObject } from './object-store.js';

/** Bytes of a tenant's running transfer. */
export interface TransferProgress {
  bytesDone: number;
  bytesTotal: number;
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
  /** Bytes received from the store (metrics). */
  readonly downloadedBytes: Count;
}

const hasLiveHandle = (entry: TenantEntry): boolean => entry.handle !== null && !entry.handle.isClosed;

/**
 * Brings one listed tenant's cached files up to date. A file whose object ETag and size match the cached copy
 * is not transferred; a new `kls.sqlite` is downloaded to a temporary file, checked, renamed over the old one
 * and swapped in (generation + 1). Failures leave the tenant in status `error` with the previous file in service.
 */
export async function syncTenantFiles(ctx: TenantDownloadContext, listed: ListedTenant): Promise<void> {
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
    entry.status = 'ready';
    entry.error = null;
    return;
  }
  const transfers: Array<{ name: TenantFileName; object: StoredObject }> = [];
  if (!klsCurrent) transfers.push({ name: 'kls.sqlite', object: listed.kls });
  if (!sisCurrent && listed.sis !== null) transfers.push({ name: 'sis.sqlite', object: listed.sis });

  await ctx.limited(async () => {
    if (ctx.signal.aborted) return;
    const progress: TransferProgress = { bytesDone: 0, bytesTotal: transfers.reduce((sum, t) => sum + t.object.size, 0) };
    ctx.progress.set(entry.compositeId, progress);
    entry.status = 'downloading';
    entry.error = null;
    try {
      let finished = 0;
      for (const transfer of transfers) {
        entry.status = 'downloading';
        await transferFile(ctx, entry, transfer.name, transfer.object, (done) => {
          progress.bytesDone = finished + done;
        });
        finished += transfer.object.size;
        progress.bytesDone = finished;
      }
      entry.hasSis = fs.existsSync(sisPath);
      entry.status = hasLiveHandle(entry) ? 'ready' : 'error';
    } catch (err) {
      entry.status = 'error';
      entry.error = (err as Error).message;
      ctx.log.error({ tenant: entry.compositeId, err: entry.error }, 'tenant download failed; the previous file stays in service');
    } finally {
      ctx.progress.delete(entry.compositeId);
    }
  });
  // A tenant that vanished from the store while this ran is no longer listed: close what it opened.
  if (ctx.registry.get(entry.compositeId) !== entry) entry.handle?.retire();
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
    const received = await ctx.objects.download(
      object.key,
      temp,
      (done) => {
        ctx.downloadedBytes.inc(done - counted);
        counted = done;
        onBytes(done);
      },
      ctx.signal,
    );
    try {
      checkSqliteFile(temp, received.announcedBytes ?? object.size);
    } catch (err) {
      throw new Error(`${name}: ${(err as Error).message}`);
    }
    if (ctx.signal.aborted) throw new Error(`${name}: download stopped (shutdown)`);
    // The object's time, not the download's: every instance then reports the same mtime for the same object.
    const lastModified = received.lastModified ?? object.lastModified ?? null;
    if (lastModified !== null) fs.utimesSync(temp, new Date(), lastModified);
    const target = path.join(entry.dir, name);
    fs.renameSync(temp, target);
    if (name === 'kls.sqlite' && !ctx.registry.install(entry, fs.statSync(target))) {
      throw new Error(entry.error ?? `${name}: the downloaded file does not open`);
    }
    recordCachedObject(entry.dir, name, { etag: received.etag === '' ? object.etag : received.etag, size: received.bytes });
    ctx.log.info({ tenant: entry.compositeId, file: name, bytes: received.bytes, generation: entry.generation }, 'tenant file downloaded');
  } finally {
    fs.rmSync(temp, { force: true });
  }
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
