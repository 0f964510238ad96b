// Setups for getDrift and createNarrative. run.ts points the server at local fakes of the GitHub and Anthropic
// APIs (test/helpers/fake-github.ts, fake-anthropic.ts) and passes the Anthropic fake's URL here, so a setup
// can queue the fake's next answer.
const http = require('node:http');


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

let keyless = null;
/**
 * True when the server answers narratives 503 for want of a key. Asked once per run, with an unknown tenant:
 * without a key the server answers 503 before looking at the tenant, with one it answers 404 and calls no
 * language model. (The question counts against the caller's narratives per minute, like any narrative call.)
 */
function withoutKey(transaction, tools) {
  keyless ??= (async () => {
    const body = { ...JSON.parse(transaction.request.body), tenant: 'no-such-tenant' };
    const headers = transaction.request.headers.Authorization ? { Authorization: transaction.request.headers.Authorization } : {};
    return (await tools.request('POST', '/api/explain-narrative', body, headers)).status === 503;
  })();
  return keyless;
}

module.exports = {
  getDrift: {
    // the tenant's database does not open
    503: (transaction, tools) => tools.brokenTenant(),
  },
  createNarrative: {
    // a deployment without a language-model key answers every narrative 503
    200: async (transaction, tools) => {
      if (tools.endpoint && (await withoutKey(transaction, tools))) tools.skip('the server has no language-model key (ANTHROPIC_API_KEY): its narratives answer 503');
    },
    // the language-model API answers an error (the server has ANTHROPIC_API_KEY, so 503 comes from the tenant)
    502: async (transaction, tools) => {
      if (tools.local('needs the local fake of the language-model API to answer an error')) {
        await queueAnthropicReply({ kind: 'status', status: 500, type: 'api_error', message: 'Internal server error' });
      }
    },
    // a tenant file that does not open, or, against a deployment without a language-model key, the example as it is
    503: async (transaction, tools) => {
      if (!tools.endpoint) return tools.brokenTenant();
      if (!(await withoutKey(transaction, tools))) return tools.skip('the server has a language-model key: its 503 needs a tenant whose file cannot be opened');
      // the contract: no Retry-After for a missing key (retrying does not help); Dredd takes declared headers as required
      delete transaction.expected.headers['Retry-After'];
    },
    // an unknown or ambiguous tenant: only a server with a key gets as far as the tenant
    404: async (transaction, tools) => {
      if (tools.endpoint && (await withoutKey(transaction, tools))) return tools.skip('the server has no language-model key: narratives answer 503 before the tenant is looked at');
      await tools.generic();
    },
    409: async (transaction, tools) => {
      if (tools.endpoint && (await withoutKey(transaction, tools))) return tools.skip('the server has no language-model key: narratives answer 503 before the tenant is looked at');
      await tools.generic();
    },
  },
};
