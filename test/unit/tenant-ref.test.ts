import { expect } from 'chai';
import { parseTenantRef } from '../../src/tenants/tenants.js';

describe('parseTenantRef', () => {
  it('accepts slugs and composite IDs', () => {
    expect(parseTenantRef('kantonsspital')).to.deep.equal({ kind: 'slug', slug: 'kantonsspital' });
    expect(parseTenantRef('west.hopital-cantonal')).to.deep.equal({ kind: 'composite', pack: 'west', slug: 'hopital-cantonal' });
  });

  it('rejects anything that could reach a path or SQL unchecked', () => {
    for (const bad of ['', '../x', '..', 'a.b.c', 'A', '-x', 'x/y', 'x y', "x'--", 'x'.repeat(64), '.x', 'x.']) {
      expect(parseTenantRef(bad), bad).to.equal(null);
    }
  });
});
