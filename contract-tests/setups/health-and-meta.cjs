// Setups for the operations tagged Health, Search (modes built so far), Meta and Operations.
const fs = require('node:fs');
const path = require('node:path');

const VANISHING_TENANT = 'ost.vanishing'; // run.ts copies a tenant here; the db-status 503 setup deletes its file
const ASSET_BY_TYPE = { 'text/css': 'swagger-ui.css', 'application/javascript': 'swagger-ui-bundle.js', 'image/png': 'favicon-32x32.png' };

/** KLS_DIR unreadable for the duration of the request: health 503 `error`, readiness 503 `kls-dir-unreadable`. */
function klsDirAway(transaction, tools) {
  if (!tools.local("needs the server's KLS_DIR made unreadable")) return;
  fs.renameSync(tools.klsDir, `${tools.klsDir}.away`);
  tools.after(() => fs.renameSync(`${tools.klsDir}.away`, tools.klsDir));
}

module.exports = {
  getHealth: {
    503: klsDirAway,
  },
  getHealthReady: {
    503: klsDirAway,
  },
  getDbStatus: {
    // a known tenant whose file vanished from disk (the next scan would drop it)
    503: (transaction, tools) => {
      if (!tools.local("needs a tenant file deleted from the server's disk")) return;
      fs.rmSync(path.join(tools.klsDir, 'ost', 'vanishing', 'kls.sqlite'), { force: true });
      tools.setTenant(VANISHING_TENANT);
    },
  },
  getJumpbar: {
    // summary needs the tenant's database, which does not open
    503: (transaction, tools) => {
      tools.setQuery('mode', 'summary');
      tools.brokenTenant();
    },
  },
  getMetrics: {
    // the Dredd server runs with METRICS=on (the default); only METRICS=off answers 404
    404: (transaction, tools) => tools.skip('needs a server with METRICS=off; test/api/get-metrics.test.ts checks that 404'),
  },
  getApiDocsAsset: {
    // one 200 transaction per declared media type: ask for an asset of that type
    200: (transaction, tools) => tools.setLastSegment(ASSET_BY_TYPE[transaction.expected.headers['Content-Type']]),
  },
  getOpenApiYaml: {
    // one 200 transaction per declared media type (application/yaml, text/yaml): ask for that one
    200: (transaction) => {
      transaction.request.headers.Accept = transaction.expected.headers['Content-Type'];
    },
  },
};
