// Setups for getDrift and createNarrative. run.ts points the server at local fakes of the GitHub and Anthropic
// APIs (test/helpers/fake-github.ts, fake-anthropic.ts) and passes the Anthropic fake's URL here, so a setup
// can queue the fake's next answer.
const http = require('node:http');

const BROKEN_TENANT = 'ost.kaputt'; // run.ts writes a kls.sqlite that is not SQLite: opening it fails

/** Queues the Anthropic fake's answer to the next message request. */
function queueAnthropicReply(reply) {
  return new Promise((resolve, reject) => {
    const url = new URL('/__fake/next', process.env.CONTRACT_FAKE_ANTHROPIC_URL);
    const payload = JSON.stringify(reply);
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`fake Anthropic answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

module.exports = {
  getDrift: {
    // the tenant's database does not open
    503: (transaction, tools) => tools.setTenant(BROKEN_TENANT),
  },
  createNarrative: {
    // the language-model API answers an error (the server has ANTHROPIC_API_KEY, so 503 comes from the tenant)
    502: () => queueAnthropicReply({ kind: 'status', status: 500, type: 'api_error', message: 'Internal server error' }),
    503: (transaction, tools) => tools.setTenant(BROKEN_TENANT),
  },
};
