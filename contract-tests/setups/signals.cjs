// Setups for the Signals operations (issue #7): the AFS lives in the run's fresh data dir.
const fs = require('node:fs');
const path = require('node:path');

const BROKEN_TENANT = 'ost.kaputt'; // run.ts writes a kls.sqlite that is not SQLite: opening it fails
const SAVED_ID = 'probe_demo_saved'; // the id of the save example

function savedFile(tools) {
  return path.join(tools.dataDir, 'afs', 'signals', `${SAVED_ID}.yaml`);
}

module.exports = {
  listSignalDefinitions: {
    // applicability needs the tenant's Gold tables, and its file does not open
    503: (transaction, tools) => tools.setTenant(BROKEN_TENANT),
  },
  loadSignalDefinition: {
    // a known tenant, but no definition with this id
    404: (transaction, tools) => tools.setQuery('probe_id', 'probe_no_such_signal'),
    // the id breaks ^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$ (a path escape)
    400: (transaction, tools) => tools.setQuery('probe_id', '../../etc/passwd'),
  },
  saveSignalDefinition: {
    // the example creates probe_demo_saved without force: start from no such file
    200: (transaction, tools) => {
      fs.rmSync(savedFile(tools), { force: true });
    },
    // the YAML's own probe_id differs from the body's
    400: (transaction) => {
      const body = JSON.parse(transaction.request.body);
      body.yaml = body.yaml.replace(`probe_id: ${SAVED_ID}`, 'probe_id: probe_something_else');
      transaction.request.body = JSON.stringify(body);
    },
    // save the same id first, then the example (force=false) must conflict
    409: async (transaction, tools) => {
      const body = JSON.parse(transaction.request.body);
      const first = await tools.request('POST', '/api/probe-builder/save?force=true', body);
      if (first.status !== 200) throw new Error(`first save answered ${first.status}`);
    },
  },
  validateSignalDefinition: {
    503: (transaction, tools) => tools.setTenant(BROKEN_TENANT),
    502: (transaction, tools) => tools.skip('needs a failing SIGNAL_CHECKER_CMD; the Dredd server runs the bundled checker (covered by test/api/validate-signal-definition.test.ts)'),
  },
  compileSignalDefinition: {
    503: (transaction, tools) => tools.setTenant(BROKEN_TENANT),
    502: (transaction, tools) => tools.skip('needs a failing SIGNAL_COMPILER_CMD; the Dredd server runs the bundled compiler (covered by test/api/compile-signal-definition.test.ts)'),
  },
};
