// Setups for the operations tagged Store.

/**
 * X-Refresh-Reach is declared for store mode, where a refresh says which instances carry it out; Dredd treats
 * every declared header as required, but a server in local mode refreshes nothing and sends none.
 */
async function reachOnlyInStoreMode(transaction, tools) {
  const status = await tools.request('GET', '/api/store-status');
  if (status.body && status.body.active === false) delete transaction.expected.headers['X-Refresh-Reach'];
}

module.exports = {
  refreshStore: { 200: reachOnlyInStoreMode },
  refreshStoreViaGet: { 200: reachOnlyInStoreMode },
};
