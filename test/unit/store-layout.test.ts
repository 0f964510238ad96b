import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { checkSqliteFile, isCachedCopy, recordCachedObject } from '../../src/store/cache-files.js';
import { isInScope, listedTenants, scopePrefix } from '../../src/store/layout.js';
import { Limiter } from '../../src/store/limiter.js';
import { demoKlsFile } from '../helpers/s3rver.js';
import { tempDir } from '../helpers/server.js';
import { nextTurn } from '../helpers/until.js';

const object = (key: string, size = 10) => ({ key, size, etag: `etag-${key}` });

describe('store layout', () => {
  it('groups <prefix><pack>/<slug>/{kls,sis}.sqlite into tenants and ignores every other key', () => {
    const tenants = listedTenants(
      [
        object('prod/ost/kantonsspital/kls.sqlite'),
        object('prod/ost/kantonsspital/sis.sqlite'),
        object('prod/ost/only-sis/sis.sqlite'),
        object('prod/west/rehaklinik/kls.sqlite'),
        object('prod/west/rehaklinik/notes.txt'),
        object('prod/West/Upper/kls.sqlite'),
        object('prod/ost/a/b/kls.sqlite'),
        object('prod/../etc/kls.sqlite'),
        object('other/ost/x/kls.sqlite'),
      ],
      'prod/',
    );
    expect([...tenants.keys()]).to.deep.equal(['ost.kantonsspital', 'west.rehaklinik']);
    expect(tenants.get('ost.kantonsspital')!.sis?.key).to.equal('prod/ost/kantonsspital/sis.sqlite');
    expect(tenants.get('west.rehaklinik')!.sis).to.equal(null);
  });

  it('lists a scope under a prefix ending in "/" so that pack ost never matches ost2', () => {
    expect(scopePrefix('prod/', { kind: 'all' })).to.equal('prod/');
    expect(scopePrefix('', { kind: 'pack', pack: 'ost' })).to.equal('ost/');
    expect(scopePrefix('p/', { kind: 'tenant', pack: 'ost', slug: 'x' })).to.equal('p/ost/x/');
    expect(isInScope({ kind: 'pack', pack: 'ost' }, 'ost2', 'x')).to.equal(false);
    expect(isInScope({ kind: 'tenant', pack: 'ost', slug: 'x' }, 'ost', 'x')).to.equal(true);
  });
});

describe('store cache files', () => {
  it('accepts a complete SQLite file and names what is wrong with others', () => {
    const dir = tempDir('ads-check-');
    try {
      const good = demoKlsFile('ost', 'kantonsspital');
      expect(() => checkSqliteFile(good, fs.statSync(good).size)).not.to.throw();
      expect(() => checkSqliteFile(good, fs.statSync(good).size + 1)).to.throw(/incomplete download/);
      const text = path.join(dir.dir, 'text');
      fs.writeFileSync(text, 'not a database\n'.repeat(100));
      expect(() => checkSqliteFile(text, null)).to.throw(/not an SQLite database/);
      const damaged = path.join(dir.dir, 'damaged');
      const bytes = fs.readFileSync(good);
      bytes.fill(0xff, 100, 4096);
      fs.writeFileSync(damaged, bytes);
      expect(() => checkSqliteFile(damaged, null)).to.throw(/does not open as SQLite/);
    } finally {
      dir.remove();
    }
  });

  it('knows a cached copy by ETag and size, and forgets it when told', () => {
    const dir = tempDir('ads-manifest-');
    try {
      fs.writeFileSync(path.join(dir.dir, 'kls.sqlite'), Buffer.alloc(10));
      expect(isCachedCopy(dir.dir, 'kls.sqlite', { etag: 'a', size: 10 })).to.equal(false);
      recordCachedObject(dir.dir, 'kls.sqlite', { etag: 'a', size: 10 });
      expect(isCachedCopy(dir.dir, 'kls.sqlite', { etag: 'a', size: 10 })).to.equal(true);
      expect(isCachedCopy(dir.dir, 'kls.sqlite', { etag: 'b', size: 10 })).to.equal(false);
      recordCachedObject(dir.dir, 'kls.sqlite', null);
      expect(isCachedCopy(dir.dir, 'kls.sqlite', { etag: 'a', size: 10 })).to.equal(false);
    } finally {
      dir.remove();
    }
  });
});

describe('Limiter', () => {
  it('never runs more than its slots at once and runs every task', async () => {
    const limiter = new Limiter(3);
    let running = 0;
    let peak = 0;
    // each task runs until the test lets it finish
    const finish: Array<() => void> = [];
    const all = Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        limiter.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise<void>((resolve) => finish.push(resolve));
          running -= 1;
          return i;
        }),
      ),
    );
    const runningAfterEachFinish: number[] = [];
    for (let finished = 0; finished < 12; finished++) {
      await nextTurn();
      runningAfterEachFinish.push(running);
      finish.shift()!();
    }
    // three at once while others wait for a slot; at the end the last two, then the last one
    expect(runningAfterEachFinish).to.deep.equal([3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 1]);
    expect(peak).to.equal(3);
    expect(await all).to.deep.equal([...Array(12).keys()]);
  });
});
