// Setups for the Taxonomies and Dimensions operations: each non-2xx transaction is made to fail
// for the reason that belongs to the operation (unknown taxonomy, unknown dimension, unknown column), not
// only through the tenant.
const http = require('node:http');

const BULK_EXPORT = '/ost.bulk/dimensions/bulk/export'; // run.ts adds a dimension of 300,000 rows to this tenant
const UNKNOWN_TAXONOMY = 'no_such_taxonomy';

/** The tenant's file cannot be opened: every operation of this area needs it. */
const brokenTenant = (transaction, tools) => tools.brokenTenant();

module.exports = {
  listTaxonomyMembers: {
    404: (transaction, tools) => replaceSegmentAfter(transaction, tools, 'taxonomies', UNKNOWN_TAXONOMY),
    503: brokenTenant,
  },
  getMemberMappings: {
    // an unknown member is an empty 200 by design, so 404 can only be an unknown tenant (the generic setup)
    503: brokenTenant,
  },
  listSharedMembers: {
    404: (transaction, tools) => tools.setQuery('nodeB', 'no_such_node'),
    503: brokenTenant,
  },
  getTaxonomyFanout: {
    // The run that starts its own server serves the demo data the contract's example was taken from: there the
    // per-node list must be the example's, names and order included. A deployment's data differ: the schema only.
    200: (transaction, tools) => {
      if (tools.endpoint) return;
      const schema = JSON.parse(transaction.expected.bodySchema);
      schema.properties.nodeFanouts = { ...schema.properties.nodeFanouts, enum: [JSON.parse(transaction.expected.body).nodeFanouts] };
      transaction.expected.bodySchema = JSON.stringify(schema);
    },
    404: (transaction, tools) => tools.setQuery('a', UNKNOWN_TAXONOMY),
    503: brokenTenant,
  },
  getTaxonomyCardinality: {
    404: (transaction, tools) => tools.setQuery('b', UNKNOWN_TAXONOMY),
    503: brokenTenant,
  },
  exportDimension: {
    200: (transaction) => {
      // X-Export-Truncated is declared because it appears beyond 1,000,000 matching rows; Dredd treats every
      // declared header as required, but the demo table (500 rows) is never truncated, so it is not expected.
      delete transaction.expected.headers['X-Export-Truncated'];
    },
    400: (transaction, tools) => tools.setQuery('f.no_such_column', '1'),
    404: (transaction, tools) => replaceSegmentAfter(transaction, tools, 'dimensions', 'no_such_dimension'),
    503: brokenTenant,
    // exports running at once per caller: large exports that are not read stay running until the transaction ends
    // (with sign-in the caller is a token of its own; without, the client address, whose exports end with it)
    429: async (transaction, tools) => {
      if (!tools.local("needs exports held open, which spend the caller's limit of exports running at once")) return;
      let headers = {};
      if (tools.signIn) {
        const token = tools.tokens.limited && tools.tokens.limited.exportDimension;
        if (!token) throw new Error('run.ts passed no limited token for exportDimension');
        headers = { Authorization: `Bearer ${token}` };
        transaction.request.headers.Authorization = headers.Authorization;
      }
      const held = [];
      tools.after(async () => {
        held.forEach((req) => req.destroy());
        // the server gives a slot back once it sees the connection closed: the next export transaction (of the same
        // client address, without sign-in) must find them free
        const deadline = Date.now() + 15_000;
        while ((await tools.request('GET', transaction.request.uri, undefined, headers)).status === 429) {
          if (Date.now() > deadline) throw new Error('the held exports were not given back within 15 s');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      });
      for (let i = 0; i < 10; i++) {
        const { status, req } = await heldExport(transaction, headers);
        if (status === 429) return;
        held.push(req);
      }
      throw new Error('10 running exports did not reach the limit');
    },
  },
};

/** Replaces the path segment that follows the literal segment `after` (the taxonomy ID, the entity key). */
function replaceSegmentAfter(transaction, tools, after, value) {
  const uri = tools.splitUri(transaction.request.uri);
  uri.segments[uri.segments.indexOf(after) + 1] = value;
  transaction.request.uri = tools.joinUri(uri);
  transaction.fullPath = transaction.request.uri;
}

/** Starts the bulk export and stops reading after its first bytes (status 200), or reads a refusal to its end. */
function heldExport(transaction, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: transaction.host, port: transaction.port, path: BULK_EXPORT, headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, req }));
        return;
      }
      res.once('data', () => {
        res.pause();
        resolve({ status: 200, req });
      });
    });
    req.on('error', reject);
  });
}
