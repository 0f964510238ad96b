import { fork, type ChildProcess } from 'node:child_process';
import * as Minio from 'minio';
import type { StoreTraffic } from './s3rver.js';

/** s3rver in a child process (test/helpers/s3rver-child.ts), whose listings go past 1,000 keys on Node 24. */
export interface ChildObjectStore {
  readonly endpoint: string;
  readonly bucket: string;
  readonly client: Minio.Client;
  /** Environment for startTestServer: store mode against this bucket. */
  env(extra?: Record<string, string>): Record<string, string>;
  traffic(): Promise<StoreTraffic>;
  resetTraffic(): Promise<void>;
  /** Answers every listing page after the first with 500 (`on`), or lets s3rver answer them. */
  failLaterListingPages(on: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Objects up to this size are written in one PUT: s3rver does not list incomplete multipart uploads, which minio asks for first. */
const SINGLE_PART_BYTES = 1024 * 1024 * 1024;

/** Starts s3rver in a child process with OpenSSL's legacy provider (its listing tokens use DES) and one bucket. */
export async function startObjectStoreProcess(bucket = 'kls-test'): Promise<ChildObjectStore> {
  const child: ChildProcess = fork(new URL('./s3rver-child.ts', import.meta.url).pathname, [bucket], {
    execArgv: ['--openssl-legacy-provider', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, (result: unknown) => void>();
  child.on('message', (message: { id: number; result: unknown }) => {
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  let next = 1;
  const ask = (command: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, resolve);
      child.send({ id, command }, (err) => err && reject(err));
    });
  const started = await new Promise<{ endpoint: string }>((resolve, reject) => {
    pending.set(0, (result) => resolve(result as { endpoint: string }));
    void exited.then(() => reject(new Error('the s3rver process exited before it listened')));
  });
  const url = new URL(started.endpoint);
  const client = new Minio.Client({ endPoint: url.hostname, port: Number(url.port), useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1', pathStyle: true, partSize: SINGLE_PART_BYTES });
  return {
    endpoint: started.endpoint,
    bucket,
    client,
    env: (extra = {}) => ({ KLS_MODE: 'store', S3_ENDPOINT: started.endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER', ...extra }),
    traffic: async () => (await ask('traffic')) as StoreTraffic,
    resetTraffic: async () => {
      await ask('resetTraffic');
    },
    failLaterListingPages: async (on) => {
      await ask(on ? 'failLaterListingPages' : 'answerListingPages');
    },
    async close() {
      if (child.exitCode !== null) return;
      await ask('close');
      await exited;
    },
  };
}
