import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

const BASE = '/kantonsspital/taxonomies/cardinality/members';
const ids = (body: { member_id: string }[]): string[] => body.map((m) => m.member_id);

describe('GET /{tenant}/taxonomies/cardinality/members', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerWithBrokenTenant();
  });
  after(async () => server.close());

  it('lists members in both taxonomies with every node they sit in on each side, ordered by member', async () => {
    const res = await call(server.url, `${BASE}?a=cost_structure&b=service_lines`);
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(32);
    expect(ids(res.body)).to.deep.equal([...ids(res.body)].sort());
    const icu = res.body.find((m: { member_id: string }) => m.member_id === 'KST-5300');
    expect(icu).to.deep.equal({
      member_id: 'KST-5300',
      dim: 'CostCentre',
      name: { en: 'Intensive care', de: 'Intensivpflege', fr: 'Soins intensifs' },
      nodesA: ['nursing', 'physicians'],
      nodesB: ['emergency', 'internal_medicine', 'surgery'],
    });
  });

  it('narrows by nodeA, nodeB and dim, still listing all nodes of each member', async () => {
    const both = await call(server.url, `${BASE}?a=cost_structure&b=service_lines&nodeA=physicians&nodeB=surgery`);
    expect(ids(both.body)).to.deep.equal(['KST-4100', 'KST-4400', 'KST-5300']);
    expect(both.body[2].nodesA).to.deep.equal(['nursing', 'physicians']);
    const materials = await call(server.url, `${BASE}?a=cost_structure&b=service_lines&dim=Material&nodeB=orthopaedics`);
    expect(ids(materials.body)).to.deep.equal(['M-2001', 'M-2002', 'M-2005', 'M-2006']);
    const drgs = await call(server.url, `${BASE}?a=service_lines&b=drg_groups&dim=Drg`);
    expect(drgs.body.every((m: { dim: string }) => m.dim === 'Drg')).to.equal(true);
    expect(drgs.body.length).to.be.greaterThan(0);
    const none = await call(server.url, `${BASE}?a=cost_structure&b=drg_groups`);
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal([]);
  });

  it('answers 404 problem for an unknown taxonomy or a node outside its taxonomy', async () => {
    expectProblem(await call(server.url, `${BASE}?a=no_such_taxonomy&b=service_lines`), 404);
    expectProblem(await call(server.url, `${BASE}?a=cost_structure&b=no_such_taxonomy`), 404);
    const node = await call(server.url, `${BASE}?a=cost_structure&b=service_lines&nodeA=surgery`);
    expectProblem(node, 404);
    expect(node.body.detail).to.include('surgery');
    expectProblem(await call(server.url, `/nowhere/taxonomies/cardinality/members?a=cost_structure&b=service_lines`), 404);
  });

  it('answers 400 without b or with a malformed dim, 409 for an ambiguous tenant, 503 for an unusable one', async () => {
    const missing = await call(server.url, `${BASE}?a=cost_structure`);
    expectProblem(missing, 400);
    expect(missing.body.errors[0]).to.include({ in: 'query', name: 'b' });
    expectProblem(await call(server.url, `${BASE}?a=cost_structure&b=service_lines&dim=no%20dim`), 400);
    expectProblem(await call(server.url, `${BASE}?a=cardinality&b=service_lines`), 400);
    expectProblem(await call(server.url, '/rehaklinik/taxonomies/cardinality/members?a=cost_structure&b=service_lines'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/taxonomies/cardinality/members?a=cost_structure&b=service_lines'), 503);
  });
});
