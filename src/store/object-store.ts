import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as Minio from 'minio';
import { STALL_BYTES, StoreStoppedError, StoreTimeoutError, type StoreTransport } from './store-transport.js';

/** One object of a listing. */
export interface StoredObject {
  key: string;
  size: number;
  etag: string;
  /** When the object was last written, to the second (as its Last-Modified header says it); absent when not listed. */
  lastModified?: Date;
}

/** What a download transferred: the ETag and length the store sent with the body. */
export interface DownloadedObject {
  etag: string;
  bytes: number;
  /** Content-Length announced by the store, null when it sent none. */
  announcedBytes: number | null;
  /** Last-Modified sent with the body, null when it sent none or an unreadable one. */
  lastModified: Date | null;
}

/** Bytes received so far and bytes expected (null while unknown). */
export type ProgressListener = (done: number, total: number | null) => void;

/**
 * The object-store port: list a prefix; download the object of a listing into a file, only while it is still the
 * object listed (its ETag).
 */
export interface ObjectStore {
  /** Every object under `prefix`; a listing that fails part-way throws ListingError with the objects received. */
  list(prefix: string): Promise<StoredObject[]>;
  /** Throws ObjectChangedError when the store holds another object under the key than `object` by now. */
  download(object: StoredObject, file: string, onProgress: ProgressListener, signal: AbortSignal): Promise<DownloadedObject>;
  /** The ETag and size of the object under `key` now (a HEAD request). */
  stat(key: string): Promise<{ etag: string; size: number }>;
  /** Cuts every request in flight and every later one (shutdown); they fail at once. */
  stop?(): void;
}

/** Where a download writes its bytes: a file opened for writing (tests: a disk that fills). */
export type FileSink = (file: string) => Writable;

/**
 * Bytes a download may have received and not yet written to its file before it stops reading (the file stream's
 * high-water mark; Node's default is 16 KiB). With 16 KiB every chunk of the socket waited for its write, and a
 * download while the server answered other requests took 1.5 times as long as alone; with 4 MiB about 1.07 times
 * (docs/decisions/0022-bounded-store-cache.md). At most STORE_CONCURRENCY downloads hold this much each.
 */
export const DOWNLOAD_WRITE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * A failure of the object store. `message` is fit for a client (store-status, a tenant's 503, a refresh answer):
 * it names no host, port, bucket, object key or errno. `detail` is for the log and names them.
 */
export class ObjectStoreError extends Error {
  readonly detail: string;
  constructor(
    message: string,
    detail: string = message,
    /** The store did not answer (a time limit, a refused or broken connection, shutdown): asking it again now is pointless. */
    readonly unanswered = false,
  ) {
    super(message);
    this.name = 'ObjectStoreError';
    this.detail = detail;
  }
}

/** A listing that failed after some of its pages arrived: `objects` holds what they listed. */
export class ListingError extends ObjectStoreError {
  constructor(
    message: string,
    readonly objects: readonly StoredObject[],
    detail: string = message,
  ) {
    super(message, detail);
    this.name = 'ListingError';
  }
}

/** The store holds another object under the key than the one listed: list again, then download that one. */
export class ObjectChangedError extends ObjectStoreError {
  constructor(key: string, detail: string) {
    super(`${key.slice(key.lastIndexOf('/') + 1)} changed in the store while it was fetched`, `${key} changed in the store while it was fetched (${detail})`);
    this.name = 'ObjectChangedError';
  }
}

/** Network failures: the store could not be reached, or the connection broke. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'ECONNABORTED']);

/**
 * What went wrong, in words for a client: no host, port, bucket, key or errno (those go to the log). An S3 error
 * code (AccessDenied, NoSuchKey) is the store's own answer and is named.
 */
/** Whether the store did not answer at all (a time limit, a refused or broken connection, shutdown). */
export function isUnanswered(err: unknown): boolean {
  if (err instanceof ObjectStoreError) return err.unanswered;
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  return (
    err instanceof StoreTimeoutError ||
    err instanceof StoreStoppedError ||
    e.name === 'AbortError' ||
    (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) ||
    e.message === 'aborted' ||
    e.message === 'socket hang up'
  );
}

export function describeFailure(err: unknown): string {
  if (err instanceof ObjectStoreError) return err.message;
  if (err instanceof StoreTimeoutError) {
    if (err.phase === 'connect') return `the object store accepted no connection within ${err.ms} ms`;
    if (err.phase === 'first-byte') return `the object store did not answer within ${err.ms} ms`;
    if (err.phase === 'idle') return `the object store stopped sending (no byte for ${err.ms} ms)`;
    return `the object store sends too slowly (less than ${STALL_BYTES / 1024} KiB per ${err.ms} ms)`;
  }
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  if (err instanceof StoreStoppedError || e.name === 'AbortError') return 'stopped: the server shuts down';
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === 'ENOSPC') return "the cache's disk is full";
  if (code === 'EDQUOT') return "the cache's disk quota is used up";
  if (isUnanswered(err)) return 'the object store could not be reached';
  if (/^E[A-Z]+$/.test(code)) return "the cache's files could not be written";
  if (/^[A-Z][A-Za-z]+$/.test(code)) return `the object store refused the request (${code})`;
  return 'the object store request failed';
}

/** Keys per listing page: the most S3 gives. */
const LIST_PAGE_KEYS = 1000;


const unquote = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/^"+|"+$/g, '');

/**
 * A store time cut to whole seconds, or null when it is not a valid time. Listings may carry milliseconds, the
 * Last-Modified header never does: cut, both give the same time for the same object.
 */
export function toStoreTime(value: Date | string | undefined): Date | null {
  const ms = value === undefined ? NaN : new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(Math.floor(ms / 1000) * 1000) : null;
}

/** Translates an SDK or network error into an ObjectStoreError: words for a client, and `what` failed with the S3 code or errno for the log. */
export function toObjectStoreError(err: unknown, what: string): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : null;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  return new ObjectStoreError(describeFailure(err), `${what}: ${code !== null && !message.includes(code) ? `${code}: ` : ''}${message}`, isUnanswered(err));
}

/** ObjectStore over a `minio` client and one bucket (any S3-compatible server). */
export class MinioObjectStore implements ObjectStore {
  constructor(
    private readonly client: Minio.Client,
    private readonly bucket: string,
    private readonly sink: FileSink = (file) => fs.createWriteStream(file, { highWaterMark: DOWNLOAD_WRITE_BUFFER_BYTES }),
    /** The client's transport, when it is a StoreTransport: stop() cuts its requests. */
    private readonly transport: StoreTransport | null = null,
  ) {}

  stop(): void {
    this.transport?.stop();
  }

  /**
   * Every object under `prefix` (ListObjectsV2, recursive, page by page). A page that fails after others arrived
   * throws ListingError with their objects.
   */
  async list(prefix: string): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    let token = '';
    for (;;) {
      let page: Awaited<ReturnType<Minio.Client['listObjectsV2Query']>>;
      try {
        page = await this.client.listObjectsV2Query(this.bucket, prefix, token, '', LIST_PAGE_KEYS, '');
      } catch (err) {
        const failed = toObjectStoreError(err, `listing s3://${this.bucket}/${prefix} failed`);
        throw objects.length === 0 ? failed : new ListingError(`${failed.message} (after ${objects.length} objects)`, objects, `${failed.detail} (after ${objects.length} objects)`);
      }
      for (const item of page.objects) {
        if (typeof item.name !== 'string') continue;
        const lastModified = toStoreTime(item.lastModified);
        objects.push({ key: item.name, size: item.size, etag: unquote(item.etag), ...(lastModified === null ? {} : { lastModified }) });
      }
      if (!page.isTruncated || page.nextContinuationToken === '') return objects;
      token = page.nextContinuationToken;
    }
  }

  async stat(key: string): Promise<{ etag: string; size: number }> {
    try {
      const stat = await this.client.statObject(this.bucket, key);
      return { etag: unquote(stat.etag), size: stat.size };
    } catch (err) {
      throw toObjectStoreError(err, `stat of ${key} failed`);
    }
  }

  /**
   * Streams the object into `file`, reporting progress. The GET carries `If-Match` with the listed ETag (a store that
   * honours it answers 412 once the object changed); a store that ignores it is caught by the ETag it sends with the
   * body, before a byte is written.
   */
  async download(object: StoredObject, file: string, onProgress: ProgressListener, signal: AbortSignal): Promise<DownloadedObject> {
    const what = `download of ${object.key} failed`;
    let body: NodeJS.ReadableStream & { headers?: IncomingHttpHeaders; destroy?: () => void };
    try {
      body = await this.client.makeRequestAsync(
        { method: 'GET', bucketName: this.bucket, objectName: object.key, headers: object.etag === '' ? {} : { 'If-Match': `"${object.etag}"` } },
        '',
        [200],
      );
    } catch (err) {
      if ((err as { code?: unknown }).code === 'PreconditionFailed') throw new ObjectChangedError(object.key, 'the store answered 412 to If-Match');
      throw toObjectStoreError(err, what);
    }
    const headers = body.headers ?? {};
    const etag = unquote(headers.etag as string | undefined);
    if (object.etag !== '' && etag !== '' && etag !== object.etag) {
      body.destroy?.();
      throw new ObjectChangedError(object.key, `listed ETag ${object.etag}, sent ${etag}`);
    }
    const length = Number(headers['content-length']);
    const announcedBytes = Number.isSafeInteger(length) && length >= 0 ? length : null;
    let bytes = 0;
    onProgress(0, announcedBytes);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        // never more than the object listed or announced: the space reserved for it in the cache is that much
        if (bytes > Math.max(object.size, announcedBytes ?? 0)) {
          done(new ObjectStoreError(`the object store sent more bytes than the ${announcedBytes ?? object.size} announced`, `${what}: more bytes than the ${announcedBytes ?? object.size} announced`));
          return;
        }
        onProgress(bytes, announcedBytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, this.sink(file), { signal });
    } catch (err) {
      throw toObjectStoreError(err, what);
    }
    return { etag: etag === '' ? object.etag : etag, bytes, announcedBytes, lastModified: toStoreTime(headers['last-modified']) };
  }
}
