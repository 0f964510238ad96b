// Setups for the Signals operations.

const SAVED_ID = 'probe_demo_saved'; // the id of the save example

/** The save example under an id no earlier run used (through the API only: a server's AFS is not ours to clean). */
function withFreshId(transaction) {
  const fresh = `probe_contract_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const body = JSON.parse(transaction.request.body);
  body.probe_id = fresh;
  body.yaml = body.yaml.replace(`probe_id: ${SAVED_ID}`, `probe_id: ${fresh}`);
  transaction.request.body = JSON.stringify(body);
  transaction.request.headers['Content-Length'] = String(Buffer.byteLength(transaction.request.body));
}

module.exports = {
  listSignalDefinitions: {
    // applicability needs the tenant's Gold tables, and its file does not open
    503: (transaction, tools) => tools.brokenTenant(),
  },
  loadSignalDefinition: {
    // a known tenant, but no definition with this id
    404: (transaction, tools) => tools.setQuery('probe_id', 'probe_no_such_signal'),
    // the id breaks ^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$ (a path escape)
    400: (transaction, tools) => tools.setQuery('probe_id', '../../etc/passwd'),
  },
  saveSignalDefinition: {
    // the example without force: under a new id, so that no file exists yet
    200: (transaction) => withFreshId(transaction),
    // the YAML's own probe_id differs from the body's
    400: (transaction) => {
      const body = JSON.parse(transaction.request.body);
      body.yaml = body.yaml.replace(`probe_id: ${SAVED_ID}`, 'probe_id: probe_something_else');
      transaction.request.body = JSON.stringify(body);
    },
    // save the same id first, then the example (force=false) must conflict
    409: async (transaction, tools) => {
      withFreshId(transaction);
      const body = JSON.parse(transaction.request.body);
      const first = await tools.request('POST', '/api/probe-builder/save?force=true', body);
      if (first.status !== 200) throw new Error(`first save answered ${first.status}`);
    },
  },
  validateSignalDefinition: {
    503: (transaction, tools) => tools.brokenTenant(),
    502: (transaction, tools) => tools.skip('needs a failing SIGNAL_CHECKER_CMD; the Dredd server runs the bundled checker (covered by test/api/validate-signal-definition.test.ts)'),
  },
  compileSignalDefinition: {
    503: (transaction, tools) => tools.brokenTenant(),
    502: (transaction, tools) => tools.skip('needs a failing SIGNAL_COMPILER_CMD; the Dredd server runs the bundled compiler (covered by test/api/compile-signal-definition.test.ts)'),
  },
};
