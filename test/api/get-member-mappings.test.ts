import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

describe('GET /{tenant}/taxonomies/cardinality/member', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerWithBrokenTenant();
  });
  after(async () => server.close());

  it('lists every taxonomy node the member is attached to, with names and parents, ordered by taxonomy and node', async () => {
    const res = await call(server.url, '/kantonsspital/taxonomies/cardinality/member?id=KST-4100');
    expect(res.status).to.equal(200);
    expect(res.body.map((m: { taxonomy_id: string; node_id: string; parent_id: string | null }) => [m.taxonomy_id, m.node_id, m.parent_id])).to.deep.equal([
      ['cost_structure', 'physicians', 'personnel'],
      ['service_lines', 'orthopaedics', 'surgery'],
      ['service_lines', 'surgery', null],
    ]);
    expect(res.body[0].taxonomy_name).to.deep.equal({ en: 'Cost structure', de: 'Kostenstruktur', fr: 'Structure des coûts' });
    expect(res.body[0].node_name).to.deep.equal({ en: 'Physicians', de: 'Ärzteschaft', fr: 'Corps médical' });
    expect(res.body[0].dim).to.equal('CostCentre');
  });

  it('finds members of three taxonomies and fills missing node names from English', async () => {
    const material = await call(server.url, '/kantonsspital/taxonomies/cardinality/member?id=M-2018');
    expect(material.body.map((m: { node_id: string }) => m.node_id)).to.deep.equal(['consumables', 'surgery', 'visceral_surgery']);
    expect(material.body[2].node_name.fr).to.equal('Visceral surgery');
    const drg = await call(server.url, '/kantonsspital/taxonomies/cardinality/member?id=I47B');
    expect(drg.body.map((m: { taxonomy_id: string; dim: string }) => `${m.taxonomy_id}:${m.dim}`)).to.deep.equal(['drg_groups:Drg', 'service_lines:Drg']);
  });

  it('answers an empty array for an unknown member', async () => {
    const res = await call(server.url, '/kantonsspital/taxonomies/cardinality/member?id=NOPE-1');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([]);
  });

  it('answers 400 without id, 404 for an unknown tenant, 409 for an ambiguous one, 503 for an unusable one', async () => {
    const missing = await call(server.url, '/kantonsspital/taxonomies/cardinality/member');
    expectProblem(missing, 400);
    expect(missing.body.errors[0]).to.include({ in: 'query', name: 'id' });
    expectProblem(await call(server.url, '/nowhere/taxonomies/cardinality/member?id=KST-4100'), 404);
    expectProblem(await call(server.url, '/rehaklinik/taxonomies/cardinality/member?id=KST-4100'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/taxonomies/cardinality/member?id=KST-4100'), 503);
  });
});
