import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { HandlePool } from '../../src/tenants/handle-pool.js';
import { KlsHandle } from '../../src/tenants/kls-handle.js';
import { tempDir } from '../helpers/server.js';

/** A small SQLite file whose one row names it. */
function writeFile(file: string, label: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE t (label TEXT); INSERT INTO t VALUES ('${label}')`);
  db.close();
}

const labelOf = (handle: KlsHandle): string => (handle.db.prepare('SELECT label FROM t').pluck().get() as string);

/** Reads the file's label under a lease, as a request does. */
function read(handle: KlsHandle): string {
  const release = handle.lease();
  try {
    return labelOf(handle);
  } finally {
    release();
  }
}

describe('tenant connections bounded by TENANT_HANDLES_MAX', () => {
  const data = tempDir('ads-handle-pool-');
  /** The handles a test opened: their connections are closed after it. */
  const opened: KlsHandle[] = [];
  afterEach(() => {
    for (const handle of opened.splice(0)) handle.retire();
  });
  after(() => data.remove());

  const open = (pool: HandlePool, name: string): KlsHandle => {
    const file = path.join(data.dir, name, 'kls.sqlite');
    if (!fs.existsSync(file)) writeFile(file, name);
    const handle = KlsHandle.open(file, 1, fs.statSync(file), pool);
    opened.push(handle);
    return handle;
  };

  it('closes idle connections beyond the bound, least recently used first, and reopens them on their next lease', () => {
    const pool = new HandlePool(2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => {
      const handle = open(pool, name);
      read(handle);
      return handle;
    }) as [KlsHandle, KlsHandle, KlsHandle, KlsHandle];
    expect(pool.size).to.equal(2);
    expect([a.isOpen, b.isOpen, c.isOpen, d.isOpen]).to.deep.equal([false, false, true, true]);
    expect(pool.evictions).to.equal(2);
    // c is used again: d is now the least recently used, and a's reopening closes it
    read(c);
    expect(read(a)).to.equal('a');
    expect([a.isOpen, c.isOpen, d.isOpen]).to.deep.equal([true, true, false]);
    expect(pool.size).to.equal(2);
    // an evicted handle is not closed for good: it still serves its generation
    expect(a.isClosed || b.isClosed || d.isClosed).to.equal(false);
  });

  it('never closes a leased connection: more are open while more tenants are in use, then the bound holds again', () => {
    const pool = new HandlePool(1);
    const handles = ['e', 'f', 'g'].map((name) => open(pool, name));
    const releases = handles.map((handle) => handle.lease());
    expect(pool.size).to.equal(3);
    expect(handles.map(labelOf)).to.deep.equal(['e', 'f', 'g']);
    releases.forEach((release) => release());
    expect(pool.size).to.equal(1);
    expect(handles.filter((handle) => handle.isOpen)).to.have.length(1);
  });

  it('keeps a pinned connection open: it is the only way to a file the path no longer names', () => {
    const pool = new HandlePool(1);
    const pinned = open(pool, 'h');
    pinned.pinned = true;
    read(open(pool, 'i'));
    expect(pinned.isOpen).to.equal(true);
    expect(read(pinned)).to.equal('h');
  });

  it('refuses to reopen an evicted connection on another file than its own', () => {
    const pool = new HandlePool(1);
    const replaced = open(pool, 'j');
    read(replaced);
    read(open(pool, 'k'));
    expect(replaced.isOpen).to.equal(false);
    const file = replaced.file;
    writeFile(`${file}.new`, 'j2');
    fs.renameSync(`${file}.new`, file);
    expect(() => replaced.lease()).to.throw(/was replaced/);
    expect(replaced.leaseCount).to.equal(0);
    expect(pool.size).to.equal(1);
  });

  it('closes a retired connection when its last lease ends, whatever the bound', () => {
    const pool = new HandlePool(8);
    const handle = open(pool, 'l');
    const release = handle.lease();
    handle.retire();
    expect(handle.isOpen).to.equal(true);
    release();
    expect(handle.isClosed).to.equal(true);
    expect(pool.size).to.equal(0);
    expect(() => handle.lease()).to.throw(/retired/);
  });
});
