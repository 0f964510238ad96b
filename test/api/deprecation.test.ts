import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { ContractIndex } from '../../src/http/contract-index.js';
import type { ContractDocument } from '../../src/contract-document.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ORIGIN = 'https://desk.example';
const CHANGELOG_ENTRY = 'https://analytics-desk.example/changelog#040--2027-01-15';
const FANOUT = '/kantonsspital/taxonomies/cardinality/fanout?a=cost_structure&b=service_lines';
const DETAIL = '/kantonsspital/taxonomies/cardinality/detail?a=cost_structure&b=service_lines';

/** The server's contract with deprecations marked: the fan-out operation with a sunset, and the `dim` parameter. */
function deprecatedContract(real: ContractDocument, marks: (doc: any) => void): ContractDocument {
  const document = structuredClone(real.document) as any;
  marks(document);
  return { ...real, document };
}

const markFanoutAndDim = (doc: any): void => {
  Object.assign(doc.paths['/{tenant}/taxonomies/cardinality/fanout'].get, {
    deprecated: true,
    'x-deprecated-since': '2027-01-15',
    'x-sunset': '2027-07-01',
    'x-deprecation-link': CHANGELOG_ENTRY,
  });
  Object.assign(doc.components.parameters.DimQuery, { deprecated: true, 'x-deprecated-since': '2026-12-01T12:00:00Z' });
};

describe('deprecation on the wire (Deprecation, Sunset, Link)', () => {
  let base: TestServer;
  let server: Server;
  let url: string;
  before(async () => {
    base = await startTestServer({ env: { CORS_ORIGINS: ORIGIN } });
    // the server's app over the same deps, serving a contract that marks deprecations
    const contract = deprecatedContract(base.deps.contract, markFanoutAndDim);
    const app = createApp({ ...base.deps, contract }, await ContractIndex.build(contract.document, base.deps.schemas));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await base?.close();
  });

  it('answers a deprecated operation with Deprecation, Sunset and the CHANGELOG entry as deprecation and sunset links', async () => {
    const res = await call(url, FANOUT);
    expect(res.status).to.equal(200);
    expect(res.headers.get('deprecation')).to.equal(`@${Date.UTC(2027, 0, 15) / 1000}`);
    expect(res.headers.get('sunset')).to.equal('Thu, 01 Jul 2027 00:00:00 GMT');
    expect(res.headers.get('link')).to.equal(`<${CHANGELOG_ENTRY}>; rel="deprecation", <${CHANGELOG_ENTRY}>; rel="sunset"`);
  });

  it("sends them on the operation's problem answers too", async () => {
    const res = await call(url, FANOUT.replace('a=cost_structure', 'a=no_such_taxonomy'));
    expectProblem(res, 404);
    expect(res.headers.get('deprecation')).to.equal(`@${Date.UTC(2027, 0, 15) / 1000}`);
  });

  it('answers Deprecation for a deprecated parameter only when the request uses it', async () => {
    const without = await call(url, DETAIL);
    expect(without.status).to.equal(200);
    expect([...without.headers.keys()].filter((name) => ['deprecation', 'sunset', 'link'].includes(name))).to.deep.equal([]);
    const using = await call(url, `${DETAIL}&dim=CostCentre`);
    expect(using.status).to.equal(200);
    expect(using.headers.get('deprecation')).to.equal(`@${Date.UTC(2026, 11, 1, 12) / 1000}`);
    // no sunset and no link given for the parameter: none sent
    expect(using.headers.get('sunset')).to.equal(null);
    expect(using.headers.get('link')).to.equal(null);
  });

  it('gives the earliest date when the operation and a parameter it uses are both deprecated', async () => {
    const res = await call(url, `${FANOUT}&dim=CostCentre`);
    expect(res.headers.get('deprecation')).to.equal(`@${Date.UTC(2026, 11, 1, 12) / 1000}`);
    expect(res.headers.get('sunset')).to.equal('Thu, 01 Jul 2027 00:00:00 GMT');
  });

  it('sends nothing for operations that are not deprecated, and the real contract deprecates nothing', async () => {
    for (const target of [url, base.url]) {
      const res = await call(target, '/kantonsspital/taxonomies/cardinality/member?id=KST-4100');
      expect(res.status).to.equal(200);
      expect(res.headers.get('deprecation')).to.equal(null);
    }
    expect((await call(base.url, FANOUT)).headers.get('deprecation')).to.equal(null);
  });

  it('lets pages of the configured origins read the three headers (CORS)', async () => {
    const res = await call(url, FANOUT, { headers: { Origin: ORIGIN } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim());
    expect(exposed).to.include.members(['Deprecation', 'Sunset', 'Link']);
  });

  it('refuses to read a contract whose deprecation has no date, naming the operation', async () => {
    const undated = deprecatedContract(base.deps.contract, (doc) => (doc.paths['/{tenant}/taxonomies/cardinality/fanout'].get.deprecated = true));
    let thrown: unknown;
    try {
      await ContractIndex.build(undated.document, base.deps.schemas);
    } catch (err) {
      thrown = err;
    }
    expect(String(thrown)).to.include('GET /{tenant}/taxonomies/cardinality/fanout: deprecated: true needs x-deprecated-since');
  });
});
