import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as Minio from 'minio';

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

/** The object-store port: list a prefix, download one object into a file. */
export interface ObjectStore {
  list(prefix: string): Promise<StoredObject[]>;
  download(key: string, file: string, onProgress: ProgressListener, signal: AbortSignal): Promise<DownloadedObject>;
}

/** A failure of the object store, with a message fit for store-status (no SDK internals). */
export class ObjectStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ObjectStoreError';
  }
}

const unquote = (etag: string | undefined): string => (etag ?? '').replace(/^W\//, '').replace(/^"+|"+$/g, '');

/**
 * A store time cut to whole seconds, or null when it is not a valid time. Listings may carry milliseconds, the
 * Last-Modified header never does: cut, both give the same time for the same object.
 */
export function toStoreTime(value: Date | string | undefined): Date | null {
  const ms = value === undefined ? NaN : new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(Math.floor(ms / 1000) * 1000) : null;
}

/** Translates an SDK or network error into an ObjectStoreError naming the S3 code or the network failure. */
export function toObjectStoreError(err: unknown, what: string): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : null;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  if (e.name === 'AbortError') return new ObjectStoreError(`${what}: aborted`);
  return new ObjectStoreError(`${what}: ${code !== null && !message.includes(code) ? `${code}: ` : ''}${message}`);
}

/** ObjectStore over a `minio` client and one bucket (any S3-compatible server). */
export class MinioObjectStore implements ObjectStore {
  constructor(
    private readonly client: Minio.Client,
    private readonly bucket: string,
  ) {}

  /** Every object under `prefix` (recursive listObjectsV2, all pages). */
  list(prefix: string): Promise<StoredObject[]> {
    return new Promise((resolve, reject) => {
      const objects: StoredObject[] = [];
      const stream = this.client.listObjectsV2(this.bucket, prefix, true);
      stream.on('data', (item) => {
        if (typeof item.name !== 'string') return;
        const lastModified = toStoreTime(item.lastModified);
        objects.push({ key: item.name, size: item.size, etag: unquote(item.etag), ...(lastModified === null ? {} : { lastModified }) });
      });
      stream.on('error', (err) => reject(toObjectStoreError(err, `listing s3://${this.bucket}/${prefix} failed`)));
      stream.on('end', () => resolve(objects));
    });
  }

  /** Streams the object into `file`, reporting progress; the ETag is the one sent with this body. */
  async download(key: string, file: string, onProgress: ProgressListener, signal: AbortSignal): Promise<DownloadedObject> {
    const what = `download of ${key} failed`;
    let body: NodeJS.ReadableStream & { headers?: IncomingHttpHeaders; destroy?: () => void };
    try {
      body = await this.client.getObject(this.bucket, key);
    } catch (err) {
      throw toObjectStoreError(err, what);
    }
    const headers = body.headers ?? {};
    const length = Number(headers['content-length']);
    const announcedBytes = Number.isSafeInteger(length) && length >= 0 ? length : null;
    let bytes = 0;
    onProgress(0, announcedBytes);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        onProgress(bytes, announcedBytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, fs.createWriteStream(file), { signal });
    } catch (err) {
      throw toObjectStoreError(err, what);
    }
    return { etag: unquote(headers.etag as string | undefined), bytes, announcedBytes, lastModified: toStoreTime(headers['last-modified']) };
  }
}
