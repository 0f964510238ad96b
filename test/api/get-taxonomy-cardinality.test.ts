import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

const BASE = '/kantonsspital/taxonomies/cardinality/detail';

describe('GET /{tenant}/taxonomies/cardinality/detail', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerWithBrokenTenant();
  });
  after(async () => server.close());

  it('counts nodes, members, shared members and node pairs, with coverage and Jaccard ratios', async () => {
    const res = await call(server.url, `${BASE}?a=cost_structure&b=service_lines&dim=CostCentre`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      a: 'cost_structure',
      b: 'service_lines',
      dim: 'CostCentre',
      counts: { nodesA: 8, nodesB: 8, membersA: 21, membersB: 14, sharedMembers: 14, nodePairs: 12 },
      ratios: { coverageA: 0.6667, coverageB: 1, jaccard: 0.6667 },
      relation: 'many_to_many',
    });
  });

  it('names each relation the demo data holds', async () => {
    const relation = async (query: string): Promise<string> => (await call(server.url, `${BASE}?${query}`)).body.relation;
    expect(await relation('a=cost_structure&b=service_lines')).to.equal('many_to_many');
    expect(await relation('a=cost_structure&b=service_lines&dim=Material')).to.equal('one_to_many');
    expect(await relation('a=service_lines&b=cost_structure&dim=Material')).to.equal('many_to_one');
    expect(await relation('a=cost_structure&b=drg_groups')).to.equal('one_to_one');
  });

  it('gives zero ratios when nothing is shared and swaps the sides with a and b', async () => {
    const none = await call(server.url, `${BASE}?a=cost_structure&b=drg_groups`);
    expect(none.body.counts.sharedMembers).to.equal(0);
    expect(none.body.ratios).to.deep.equal({ coverageA: 0, coverageB: 0, jaccard: 0 });
    const forward = await call(server.url, `${BASE}?a=service_lines&b=drg_groups`);
    const backward = await call(server.url, `${BASE}?a=drg_groups&b=service_lines`);
    expect(backward.body.counts.membersA).to.equal(forward.body.counts.membersB);
    expect(backward.body.ratios.coverageA).to.equal(forward.body.ratios.coverageB);
    expect(backward.body.ratios.jaccard).to.equal(forward.body.ratios.jaccard);
  });

  it('answers 404 for an unknown taxonomy or tenant, 400 without b, 409 ambiguous, 503 unusable', async () => {
    expectProblem(await call(server.url, `${BASE}?a=cost_structure&b=no_such_taxonomy`), 404);
    expectProblem(await call(server.url, '/nowhere/taxonomies/cardinality/detail?a=cost_structure&b=service_lines'), 404);
    expectProblem(await call(server.url, `${BASE}?a=cost_structure`), 400);
    expectProblem(await call(server.url, '/rehaklinik/taxonomies/cardinality/detail?a=cost_structure&b=service_lines'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/taxonomies/cardinality/detail?a=cost_structure&b=service_lines'), 503);
  });
});
