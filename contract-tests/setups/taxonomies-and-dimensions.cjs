// Setups for the Taxonomies and Dimensions operations (issue #5): each non-2xx transaction is made to fail
// for the reason that belongs to the operation (unknown taxonomy, unknown dimension, unknown column), not
// only through the tenant.
const BROKEN_TENANT = 'ost.kaputt'; // run.ts writes a kls.sqlite that is not SQLite: opening it fails
const UNKNOWN_TAXONOMY = 'no_such_taxonomy';

/** The tenant's file cannot be opened: every operation of this area needs it. */
const brokenTenant = (transaction, tools) => tools.setTenant(BROKEN_TENANT);

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
  },
};

/** Replaces the path segment that follows the literal segment `after` (the taxonomy ID, the entity key). */
function replaceSegmentAfter(transaction, tools, after, value) {
  const uri = tools.splitUri(transaction.request.uri);
  uri.segments[uri.segments.indexOf(after) + 1] = value;
  transaction.request.uri = tools.joinUri(uri);
  transaction.fullPath = transaction.request.uri;
}
