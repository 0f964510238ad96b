import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';
import { startServerWithBrokenTenant } from '../helpers/taxonomy-server.js';

const BASE = '/kantonsspital/taxonomies/cardinality/fanout';

describe('GET /{tenant}/taxonomies/cardinality/fanout', () => {
  let server: TestServer;
  before(async () => {
    server = await startServerWithBrokenTenant();
  });
  after(async () => server.close());

  it('gives the distribution of distinct b nodes per a node, its max and mean, and each node with its name and fan-out', async () => {
    const res = await call(server.url, `${BASE}?a=cost_structure&b=service_lines&dim=CostCentre`);
    expect(res.status).to.equal(200);
    // therapy → 1, infrastructure → 1, medical_services → 2, nursing → 3, physicians → 5
    expect(res.body).to.deep.equal({
      a: 'cost_structure',
      b: 'service_lines',
      dim: 'CostCentre',
      nodes: 5,
      distribution: [
        { fanout: 1, nodes: 2 },
        { fanout: 2, nodes: 1 },
        { fanout: 3, nodes: 1 },
        { fanout: 5, nodes: 1 },
      ],
      max: 5,
      mean: 2.4,
      nodeFanouts: [
        { node_id: 'physicians', node_name: { en: 'Physicians', de: 'Ärzteschaft', fr: 'Corps médical' }, fanout: 5 },
        { node_id: 'nursing', node_name: { en: 'Nursing', de: 'Pflege', fr: 'Soins infirmiers' }, fanout: 3 },
        { node_id: 'medical_services', node_name: { en: 'Medical services', de: 'Medizinische Dienste', fr: 'Services médicaux' }, fanout: 2 },
        // equal fan-outs in node_id order
        { node_id: 'infrastructure', node_name: { en: 'Infrastructure and IT', de: 'Infrastruktur und Informatik', fr: 'Infrastructure et informatique' }, fanout: 1 },
        { node_id: 'therapy', node_name: { en: 'Therapies', de: 'Therapien', fr: 'Thérapies' }, fanout: 1 },
      ],
    });
  });

  it('lists every counted node once, its fan-out agreeing with the distribution, in both directions and without dim', async () => {
    for (const query of ['a=service_lines&b=cost_structure&dim=CostCentre', 'a=cost_structure&b=service_lines', 'a=service_lines&b=cost_structure']) {
      const { body } = await call(server.url, `${BASE}?${query}`);
      const perNode: { node_id: string; fanout: number }[] = body.nodeFanouts;
      expect(perNode, query).to.have.length(body.nodes);
      expect(new Set(perNode.map((n) => n.node_id)).size, query).to.equal(body.nodes);
      const sorted = [...perNode].sort((x, y) => y.fanout - x.fanout || (x.node_id < y.node_id ? -1 : x.node_id > y.node_id ? 1 : 0));
      expect(perNode, `${query}: fan-out descending, then node_id`).to.deep.equal(sorted);
      const buckets = new Map<number, number>();
      for (const n of perNode) buckets.set(n.fanout, (buckets.get(n.fanout) ?? 0) + 1);
      expect([...buckets].sort(([x], [y]) => x - y).map(([fanout, nodes]) => ({ fanout, nodes })), query).to.deep.equal(body.distribution);
    }
  });

  it('is directional, rounds the mean to 4 decimals, and is all zeros when nothing is shared', async () => {
    const reverse = await call(server.url, `${BASE}?a=service_lines&b=cost_structure&dim=CostCentre`);
    expect(reverse.body.nodes).to.equal(8);
    expect(reverse.body.max).to.equal(3); // surgery reaches physicians, nursing and infrastructure
    const all = await call(server.url, `${BASE}?a=cost_structure&b=service_lines`);
    expect(all.body.dim).to.equal(null);
    expect(all.body.mean).to.equal(2.4286);
    const none = await call(server.url, `${BASE}?a=cost_structure&b=drg_groups`);
    expect(none.body).to.deep.equal({ a: 'cost_structure', b: 'drg_groups', dim: null, nodes: 0, distribution: [], max: 0, mean: 0, nodeFanouts: [] });
  });

  it('answers 404 for an unknown taxonomy or tenant, 400 without a, 409 ambiguous, 503 unusable', async () => {
    expectProblem(await call(server.url, `${BASE}?a=no_such_taxonomy&b=service_lines`), 404);
    expectProblem(await call(server.url, '/nowhere/taxonomies/cardinality/fanout?a=cost_structure&b=service_lines'), 404);
    expectProblem(await call(server.url, `${BASE}?b=service_lines`), 400);
    expectProblem(await call(server.url, '/rehaklinik/taxonomies/cardinality/fanout?a=cost_structure&b=service_lines'), 409);
    expectProblem(await call(server.url, '/ost.kaputt/taxonomies/cardinality/fanout?a=cost_structure&b=service_lines'), 503);
  });
});
