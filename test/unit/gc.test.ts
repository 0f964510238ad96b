import { expect } from 'chai';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { v8Collection } from '../../src/gc.js';

const gcModule = path.resolve(import.meta.dirname, '../../src/gc.ts');

/** A thread that takes V8's collection 200 times as soon as it starts, and says how often it got it. */
const TAKER = `
const { parentPort } = require('node:worker_threads');
import(${JSON.stringify(gcModule)}).then(({ v8Collection }) => {
  let got = 0;
  for (let i = 0; i < 200; i++) if (typeof v8Collection() === 'function') got++;
  parentPort.postMessage(got);
}, (err) => parentPort.postMessage(String(err)));
`;

describe('V8 collection', () => {
  it('is taken by several threads at once, each time, and stays hidden from other code', async () => {
    const threads = Array.from({ length: 6 }, () => new Worker(TAKER, { eval: true }));
    const got = await Promise.all(threads.map((thread) => new Promise((resolve, reject) => thread.once('message', resolve).once('error', reject))));
    await Promise.all(threads.map((thread) => thread.terminate()));
    expect(got).to.deep.equal([200, 200, 200, 200, 200, 200]);
    const gc = v8Collection();
    gc({ type: 'minor' });
    expect(typeof (globalThis as { gc?: unknown }).gc).to.equal('undefined');
  });
});
