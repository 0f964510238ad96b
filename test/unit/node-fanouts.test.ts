import { expect } from 'chai';
import Database from 'better-sqlite3';
import { nodeFanouts } from '../../src/taxonomies/cardinality.js';

describe('nodeFanouts (the per-node list of GET /{tenant}/taxonomies/cardinality/fanout)', () => {
  it('names each node from taxonomy_nodes (a missing variant filled, the node ID without a row) and orders by fan-out, then node_id', () => {
    const db = new Database(':memory:');
    try {
      db.exec(`CREATE TABLE taxonomy_nodes (taxonomy_id TEXT, node_id TEXT, parent_id TEXT, name_en TEXT, name_de TEXT, name_fr TEXT);
        INSERT INTO taxonomy_nodes VALUES ('t', 'b', NULL, NULL, 'Bé', NULL), ('t', 'c', NULL, 'Cee', 'Zeh', 'Cé'), ('other', 'a', NULL, 'Other A', NULL, NULL);`);
      const reached = new Map([
        ['c', new Set(['x'])],
        ['a', new Set(['x'])],
        ['b', new Set(['x', 'y'])],
      ]);
      expect(nodeFanouts(db, 't', reached)).to.deep.equal([
        { node_id: 'b', node_name: { en: 'Bé', de: 'Bé', fr: 'Bé' }, fanout: 2 },
        { node_id: 'a', node_name: { en: 'a', de: 'a', fr: 'a' }, fanout: 1 },
        { node_id: 'c', node_name: { en: 'Cee', de: 'Zeh', fr: 'Cé' }, fanout: 1 },
      ]);
    } finally {
      db.close();
    }
  });
});
