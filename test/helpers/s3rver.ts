import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as Minio from 'minio';
import { demoTemplateDir } from './server.js';

/** The part of s3rver's (untyped) API this helper uses. */
interface S3rverInstance {
  configureBuckets(): Promise<void>;
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  /** Its file-system store: an object is a file whose modification time is the object's Last-Modified. */
  store: { getResourcePath(bucket: string, key: string, resource: string): string };
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

/** What the object store was asked for since the last reset: object GETs (downloads) and their bytes. */
export interface StoreTraffic {
  objectGets: number;
  bytes: number;
  lists: number;
  /** Object GETs whose client went away before the body was sent to the end. */
  cutOff: number;
}

/** s3rver on 127.0.0.1 with one bucket, a counting front and stop/restart on the same port. */
export interface TestObjectStore {
  readonly endpoint: string;
  readonly bucket: string;
  readonly client: Minio.Client;
  readonly traffic: StoreTraffic;
  /** Environment for startTestServer: store mode against this bucket. */
  env(extra?: Record<string, string>): Record<string, string>;
  put(key: string, file: string): Promise<void>;
  putBuffer(key: string, data: Buffer): Promise<void>;
  remove(key: string): Promise<void>;
  /** Sets the object's Last-Modified (S3 keeps whole seconds), as if it had been written at `time`. */
  setLastModified(key: string, time: Date): void;
  /** Uploads every demo tenant file as `<prefix><pack>/<slug>/kls.sqlite`; returns the composite IDs. */
  uploadDemo(prefix?: string): Promise<string[]>;
  resetTraffic(): void;
  /** Paces object downloads: each body chunk (64 KiB) waits `msPerChunk` before the next; null for full speed. */
  slowDownloads(msPerChunk: number | null): void;
  /**
   * Answers every listing page after the first with 500, or, off, lets s3rver answer. (In a process without
   * OpenSSL's legacy provider s3rver answers 500 already to the first page of a listing past 1,000 keys: the DES it
   * encrypts the continuation token with is refused; s3rver-process.ts runs it with that provider.)
   */
  failLaterListingPages(on: boolean): void;
  /** Stops answering (connections refused) until restart(). */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The demo `kls.sqlite` of `<pack>/<slug>`. */
export const demoKlsFile = (pack: string, slug: string): string => path.join(demoTemplateDir(), 'kls', pack, slug, 'kls.sqlite');

/** A copy of a demo tenant file whose `meta.display_name` is `displayName` (different bytes, so a different ETag). */
export function klsVariant(pack: string, slug: string, displayName: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-variant-')), 'kls.sqlite');
  fs.copyFileSync(demoKlsFile(pack, slug), file);
  const db = new Database(file);
  try {
    db.prepare("UPDATE meta SET value = ? WHERE key = 'display_name'").run(displayName);
  } finally {
    db.close();
  }
  return file;
}

const isObjectGet = (req: http.IncomingMessage): boolean => {
  const url = new URL(req.url ?? '/', 'http://store');
  return req.method === 'GET' && url.pathname.split('/').filter((s) => s !== '').length >= 2 && url.search === '';
};

/** Sends a response body one chunk per `ms` (chunks are queued; the body's writer is not slowed, the client is). */
function pace(res: http.ServerResponse, ms: number): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => void;
  const queue: Array<() => void> = [];
  let sending = false;
  const next = (): void => {
    const send = queue.shift();
    sending = send !== undefined;
    if (send === undefined) return;
    send();
    setTimeout(next, ms);
  };
  const enqueue = (send: () => void): void => {
    queue.push(send);
    if (!sending) next();
  };
  res.write = ((...args: unknown[]) => {
    enqueue(() => write(...args));
    return true;
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    enqueue(() => end(...args));
    return res;
  }) as typeof res.end;
}

/** Objects up to this size are written in one PUT: s3rver does not list incomplete multipart uploads, which minio asks for first. */
const SINGLE_PART_BYTES = 1024 * 1024 * 1024;

/** Starts s3rver over a fresh temporary directory on a free loopback port and creates `bucket`. */
export async function startObjectStore(bucket = 'kls-test'): Promise<TestObjectStore> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-s3rver-'));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  await s3rver.configureBuckets();
  const respond = s3rver.callback();
  const traffic: StoreTraffic = { objectGets: 0, bytes: 0, lists: 0, cutOff: 0 };
  let msPerChunk: number | null = null;
  let failLaterPages = false;
  const server = http.createServer((req, res) => {
    if (failLaterPages && /list-type=2/.test(req.url ?? '') && /continuation-token=/.test(req.url ?? '')) {
      traffic.lists += 1;
      res.writeHead(500, { 'Content-Type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>');
      return;
    }
    if (isObjectGet(req)) {
      traffic.objectGets += 1;
      if (msPerChunk !== null) pace(res, msPerChunk);
      res.once('finish', () => {
        traffic.bytes += Number(res.getHeader('content-length') ?? 0);
      });
      res.once('close', () => {
        if (!res.writableFinished) traffic.cutOff += 1;
      });
    } else if (req.method === 'GET' && /list-type=2/.test(req.url ?? '')) {
      traffic.lists += 1;
    }
    respond(req, res);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new Minio.Client({ endPoint: '127.0.0.1', port, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1', pathStyle: true, partSize: SINGLE_PART_BYTES });
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return {
    endpoint,
    bucket,
    client,
    traffic,
    env: (extra = {}) => ({ KLS_MODE: 'store', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER', ...extra }),
    async put(key, file) {
      await client.fPutObject(bucket, key, file);
    },
    async putBuffer(key, data) {
      await client.putObject(bucket, key, data, data.length);
    },
    async remove(key) {
      await client.removeObject(bucket, key);
    },
    setLastModified(key, time) {
      fs.utimesSync(s3rver.store.getResourcePath(bucket, key, 'object'), time, time);
    },
    async uploadDemo(prefix = '') {
      const klsRoot = path.join(demoTemplateDir(), 'kls');
      const ids: string[] = [];
      for (const pack of fs.readdirSync(klsRoot).sort()) {
        for (const slug of fs.readdirSync(path.join(klsRoot, pack)).sort()) {
          await client.fPutObject(bucket, `${prefix}${pack}/${slug}/kls.sqlite`, demoKlsFile(pack, slug));
          ids.push(`${pack}.${slug}`);
        }
      }
      return ids;
    },
    slowDownloads(ms) {
      msPerChunk = ms;
    },
    failLaterListingPages(on) {
      failLaterPages = on;
    },
    resetTraffic() {
      traffic.objectGets = 0;
      traffic.bytes = 0;
      traffic.lists = 0;
      traffic.cutOff = 0;
    },
    stop,
    async restart() {
      if (running) return;
      await listen(port);
      running = true;
    },
    async close() {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
