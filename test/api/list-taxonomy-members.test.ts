import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

describe('GET /{tenant}/taxonomies/{taxonomy_id}/members', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerWithBrokenTenant();
  });
  after(async () => server.close());

  it('lists every member of a taxonomy, one entry per node, ordered by node', async () => {
    const res = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(res.body).to.have.length(61 + 2); // 61 distinct members, KST-5300 and KST-3300 sit in two nodes
    const nodes = res.body.map((m: { node_id: string }) => m.node_id);
    expect(nodes).to.deep.equal([...nodes].sort());
    expect(res.body.filter((m: { member_id: string }) => m.member_id === 'KST-5300').map((m: { node_id: string }) => m.node_id)).to.deep.equal([
      'nursing',
      'physicians',
    ]);
  });

  it('lists the members of one node, ordered by the name in the locale', async () => {
    const en = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?node_id=nursing');
    expect(en.body.map((m: { member_id: string }) => m.member_id)).to.deep.equal(['KST-5300', 'KST-5200', 'KST-5100']);
    expect(en.body[0]).to.deep.equal({
      taxonomy_id: 'cost_structure',
      node_id: 'nursing',
      member_id: 'KST-5300',
      dim: 'CostCentre',
      name: { en: 'Intensive care', de: 'Intensivpflege', fr: 'Soins intensifs' },
    });
    const de = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?node_id=nursing&locale=de');
    expect(de.body.map((m: { name: { de: string } }) => m.name.de)).to.deep.equal(['Intensivpflege', 'Pflege Chirurgie', 'Pflege Innere Medizin']);
  });

  it('searches ids and the three names case- and accent-insensitively across nodes, ignoring node_id', async () => {
    const byId = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?q=kst-41&node_id=nursing');
    expect(byId.body.map((m: { member_id: string }) => m.member_id)).to.deep.equal(['KST-4100']);
    const german = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?q=ARZTLICHER');
    expect(german.body.map((m: { member_id: string }) => m.member_id).sort()).to.deep.equal(['KST-4100', 'KST-4200', 'KST-4300']);
    const french = await call(server.url, '/kantonsspital/taxonomies/service_lines/members?q=médical%20des%20urg');
    expect(french.body.map((m: { member_id: string; node_id: string }) => `${m.node_id}/${m.member_id}`)).to.deep.equal(['emergency/KST-4300']);
    const none = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?q=zzz-nothing');
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal([]);
  });

  it('fills a missing language from English (KST-6200 has no French name in the KLS)', async () => {
    const res = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?node_id=therapy');
    const member = res.body.find((m: { member_id: string }) => m.member_id === 'KST-6200');
    expect(member.name).to.deep.equal({ en: 'Occupational therapy', de: 'Ergotherapie', fr: 'Occupational therapy' });
  });

  it('answers 404 problem for an unknown taxonomy, an unknown node and an unknown tenant', async () => {
    expectProblem(await call(server.url, '/kantonsspital/taxonomies/no_such_taxonomy/members'), 404);
    const node = await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?node_id=surgery');
    expectProblem(node, 404);
    expect(node.body.detail).to.include('surgery');
    expectProblem(await call(server.url, '/nowhere/taxonomies/cost_structure/members'), 404);
  });

  it('answers 400 for a malformed taxonomy ID or an empty q, 409 for an ambiguous tenant, 503 for an unusable one', async () => {
    expectProblem(await call(server.url, '/kantonsspital/taxonomies/Bad%20Id/members'), 400);
    expectProblem(await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?q='), 400);
    expectProblem(await call(server.url, '/kantonsspital/taxonomies/cost_structure/members?locale=it'), 400);
    expectProblem(await call(server.url, '/rehaklinik/taxonomies/cost_structure/members'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/taxonomies/cost_structure/members'), 503);
  });
});
