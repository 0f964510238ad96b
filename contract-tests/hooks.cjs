// Dredd hooks: every transaction Dredd builds from openapi.yaml (one per operation, declared status and media
// type; a declared answer Dredd made no transaction of fails the run) is either set up here so the server really
// answers that status, or skipped for a stated reason (printed per transaction at the end); a status no setup
// knows fails. Every header the contract declares for the answer, required or not, is expected in it: where its
// absence is the contract's own case, the setup says why and drops it.
//  - the status needs what this run does not have: against a deployment (CONTRACT_MODE=endpoint) everything is
//    prepared through the API only, so files on the server's disk, a second token or spending the caller's
//    limits are out of reach.
// With sign-in (CONTRACT_SIGN_IN=on) CONTRACT_TOKENS holds bearer tokens, and every transaction of an operation
// that needs a token carries the admin token unless its status is about the token (401: none, 403: a token
// without roles, 429: a token whose limit is spent).
const hooks = require('hooks');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const YAML = require('yaml');

const DATA_DIR = process.env.CONTRACT_DATA_DIR;
const KLS_DIR = process.env.CONTRACT_KLS_DIR;
const UNKNOWN_TENANT = 'no-such-tenant';
/** The local run writes this tenant's kls.sqlite as a file that is not SQLite: requests that open it answer 503. */
const BROKEN_TENANT = 'ost.kaputt';
/** 'local': run.ts started the server (contract-tests/local-world.ts); 'endpoint': a deployment, API only. */
const ENDPOINT = process.env.CONTRACT_MODE === 'endpoint';
const SIGN_IN = process.env.CONTRACT_SIGN_IN === 'on';
/** `{admin, noRole, limited: {[operationId]: token}}`; empty when the server runs without sign-in. */
const TOKENS = JSON.parse(process.env.CONTRACT_TOKENS || '{}');
const ADMIN = TOKENS.admin ? { Authorization: `Bearer ${TOKENS.admin}` } : {};
const AMBIGUOUS_TENANT = 'rehaklinik';
/** The local run's app database, `postgresql` or `sqlite` (contract-tests/local-world.ts); unset against a deployment. */
const APP_DB = process.env.CONTRACT_APP_DB || null;

const doc = YAML.parse(fs.readFileSync(path.join(__dirname, '..', 'openapi.yaml'), 'utf8'));
const deref = (node) => {
  if (node && node.$ref) return deref(node.$ref.replace(/^#\//, '').split('/').reduce((n, k) => n[k], doc));
  return node;
};

// every operation of the contract with its path template and parameters, by operationId
const routes = new Map();
for (const [template, item] of Object.entries(doc.paths)) {
  for (const method of ['get', 'post', 'put', 'delete']) {
    const op = item[method];
    if (!op) continue;
    const params = [...(item.parameters || []), ...(op.parameters || [])].map(deref);
    routes.set(op.operationId, { method: method.toUpperCase(), template, op, params });
  }
}

/**
 * The server's own routing (src/http/contract-index.ts), loaded through tsx before the first transaction: a
 * transaction belongs to the operation the server would match it to.
 */
let contractIndex = null;
hooks.beforeAll((transactions, done) => {
  require('tsx/esm/api').register();
  const load = (file) => import(pathToFileURL(path.join(__dirname, '..', file)).href);
  Promise.all([load('src/http/contract-index.ts'), load('src/contract-document.ts'), load('src/contract-schemas.ts')])
    .then(async ([{ ContractIndex }, { loadContractDocument }, { ContractSchemas }]) => {
      const contract = loadContractDocument(path.join(__dirname, '..'));
      contractIndex = await ContractIndex.build(contract.document, new ContractSchemas(contract.document));
      done();
    })
    .catch((err) => {
      console.error(`the hooks could not load the server's contract index: ${err.stack}`);
      process.exit(1);
    });
});

/** The names of the headers the contract declares for answer `status` of the route's operation. */
function declaredHeaders(route, status) {
  const response = deref(route.op.responses[String(status)]);
  return Object.keys((response && response.headers) || {});
}

/** `METHOD template status media-type` of an answer (the media type without parameters; empty without a body). */
const answerKey = (route, status, mediaType) => `${route.method} ${route.template} ${status} ${(mediaType || '').split(';')[0].trim()}`;

/** Every answer the contract declares, by answerKey. */
function declaredAnswers() {
  const answers = new Set();
  for (const route of routes.values()) {
    for (const [status, response] of Object.entries(route.op.responses)) {
      const mediaTypes = Object.keys(deref(response).content || {});
      for (const mediaType of mediaTypes.length > 0 ? mediaTypes : ['']) answers.add(answerKey(route, status, mediaType));
    }
  }
  return answers;
}

/** True when the operation needs a bearer token with sign-in (its effective `security` is not empty). */
function needsToken(route) {
  return (route.op.security || doc.security || []).length > 0;
}

function routeOf(transaction) {
  const matched = contractIndex.match(transaction.request.method, transaction.request.uri.split('?')[0]);
  return matched === null ? undefined : routes.get(matched.operationId);
}

function splitUri(uri) {
  const [pathname, query = ''] = uri.split('?');
  return { segments: pathname.split('/'), query: new URLSearchParams(query) };
}
function joinUri({ segments, query }) {
  const q = query.toString();
  return segments.join('/') + (q ? `?${q}` : '');
}

/** Replaces the tenant wherever the operation takes it (path, query or JSON body). Returns false when it takes none. */
function setTenant(transaction, route, value) {
  const uri = splitUri(transaction.request.uri);
  const templateSegments = route.template.split('/');
  let changed = false;
  templateSegments.forEach((segment, i) => {
    if (segment === '{tenant}') {
      uri.segments[i] = value;
      changed = true;
    }
  });
  if (route.params.some((p) => p.in === 'query' && p.name === 'tenant')) {
    uri.query.set('tenant', value);
    // refresh reads `tenant` only with scope=tenant
    if (uri.query.has('scope')) uri.query.set('scope', 'tenant');
    changed = true;
  }
  transaction.request.uri = joinUri(uri);
  transaction.fullPath = transaction.request.uri;
  if (transaction.request.body) {
    const body = JSON.parse(transaction.request.body);
    if (body && typeof body === 'object' && ('tenant' in body || 'scope' in body)) {
      body.tenant = value;
      // refresh reads `tenant` only with scope=tenant
      if ('scope' in body) body.scope = 'tenant';
      transaction.request.body = JSON.stringify(body);
      changed = true;
    }
  }
  return changed;
}

/** Breaks one input so request validation must answer 400. */
function breakInput(transaction, route) {
  const uri = splitUri(transaction.request.uri);
  const requiredQuery = route.params.find((p) => p.in === 'query' && p.required);
  if (requiredQuery) {
    uri.query.delete(requiredQuery.name);
  } else if (route.params.some((p) => p.in === 'path')) {
    const index = route.template.split('/').findIndex((s) => s.startsWith('{'));
    uri.segments[index] = '..%2Fetc';
  } else if (route.op.requestBody) {
    transaction.request.body = '{"scope":';
  } else {
    uri.query.set('unknown_parameter', '1');
  }
  transaction.request.uri = joinUri(uri);
  transaction.fullPath = transaction.request.uri;
}

function fetchEtag(transaction, done) {
  const req = http.request({ host: transaction.host, port: transaction.port, path: transaction.request.uri, method: 'GET', headers: { ...ADMIN } }, (res) => {
    res.resume();
    res.on('end', () => {
      const etag = res.headers.etag;
      if (etag) transaction.request.headers['If-None-Match'] = etag;
      else transaction.fail = 'the 200 response carried no ETag to revalidate';
      done();
    });
  });
  req.on('error', (err) => {
    transaction.fail = err.message;
    done();
  });
  req.end();
}

// Dredd 14's OpenAPI 3 parser drops oneOf, allOf, additionalProperties, pattern and more from the schemas it
// checks bodies against (it prints "unsupported key" warnings). Each JSON transaction is given the full
// schema of its response instead, dereferenced and turned into draft-07 JSON Schema (gavel validates with ajv).
const KNOWN_FORMATS = new Set(['date-time', 'date', 'uuid', 'uri', 'uri-reference', 'email']);
const OPENAPI_ONLY = new Set(['discriminator', 'example', 'examples', 'xml', 'externalDocs', 'deprecated', 'readOnly', 'writeOnly', 'nullable']);
function toJsonSchema(node) {
  node = deref(node);
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (OPENAPI_ONLY.has(key)) continue;
    if (key === 'format' && !KNOWN_FORMATS.has(value)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, toJsonSchema(schema)]));
    } else if (['items', 'additionalProperties', 'not'].includes(key) || ['allOf', 'oneOf', 'anyOf'].includes(key)) {
      out[key] = typeof value === 'boolean' ? value : toJsonSchema(value);
    } else {
      out[key] = value;
    }
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

function useFullSchema(transaction, route, status) {
  const response = deref(route.op.responses[String(status)]);
  const mediaType = (transaction.expected.headers['Content-Type'] || '').split(';')[0].trim();
  const media = response && response.content && response.content[mediaType];
  if (media && media.schema && /json$/.test(mediaType)) {
    transaction.expected.bodySchema = JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...toJsonSchema(media.schema) });
  }
}

/** A JSON request to the server under test (for setups that create resources first), as the admin by default. */
function request(transaction, method, uri, body, extraHeaders = ADMIN) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { ...extraHeaders, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) };
    const req = http.request({ host: transaction.host, port: transaction.port, path: uri, method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, body: json, text });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Operation-specific setups, one file per area in contract-tests/setups/: each exports
 * `{ [operationId]: { [status]: (transaction, tools) => Promise<void> | void } }`. A setup for a status
 * replaces the generic one below; `tools.generic()` runs the generic one too.
 */
const SETUPS = {};
const setupDir = path.join(__dirname, 'setups');
for (const file of fs.existsSync(setupDir) ? fs.readdirSync(setupDir).sort() : []) {
  if (!file.endsWith('.cjs')) continue;
  for (const [operationId, byStatus] of Object.entries(require(path.join(setupDir, file)))) {
    SETUPS[operationId] = { ...(SETUPS[operationId] || {}), ...byStatus };
  }
}

const skipped = [];
function skip(transaction, reason) {
  transaction.skip = true;
  skipped.push(`${transaction.name}: ${reason}`);
}

/** Declared answers Dredd made no transaction of (its parser drops what it cannot read); the first transaction fails with them. */
let untested = [];
hooks.beforeAll((transactions, done) => {
  const made = new Set();
  for (const transaction of transactions) {
    const route = routeOf(transaction);
    if (route) made.add(answerKey(route, transaction.expected.statusCode, transaction.expected.headers['Content-Type']));
  }
  untested = [...declaredAnswers()].filter((answer) => !made.has(answer));
  // Without sign-in a limit counts per client address, and every transaction comes from one: the 429s of
  // per-minute limits run last (Dredd runs this array in its order), so that no transaction meets a spent limit.
  if (!SIGN_IN && !ENDPOINT) {
    const spendsPerMinute = (transaction) => {
      const route = routeOf(transaction);
      return Number(transaction.expected.statusCode) === 429 && route !== undefined && route.op['x-cost'] !== 'export';
    };
    const last = transactions.filter(spendsPerMinute);
    const first = transactions.filter((transaction) => !spendsPerMinute(transaction));
    transactions.splice(0, transactions.length, ...first, ...last);
  }
  done();
});

hooks.beforeEach((transaction, done) => {
  if (untested.length > 0) {
    transaction.fail = `Dredd made no transaction of these answers of openapi.yaml: ${untested.join('; ')}`;
    untested = [];
    return done();
  }
  const route = routeOf(transaction);
  if (!route) {
    transaction.fail = `no operation of openapi.yaml matches ${transaction.request.method} ${transaction.request.uri}`;
    return done();
  }
  const operationId = route.op.operationId;
  const status = Number(transaction.expected.statusCode);
  transaction.operationId = operationId;
  // the contract, not Dredd's reading of it, says which headers the answer carries
  const expectedNames = Object.keys(transaction.expected.headers).map((name) => name.toLowerCase());
  for (const name of declaredHeaders(route, status)) {
    if (!expectedNames.includes(name.toLowerCase())) transaction.expected.headers[name] = '';
  }
  if (TOKENS.admin && needsToken(route)) transaction.request.headers.Authorization = ADMIN.Authorization;
  useFullSchema(transaction, route, status);
  // conditional headers only where a status is about them (304, 412): an example tag would turn a write's 200 into 412
  delete transaction.request.headers['If-Match'];
  delete transaction.request.headers['If-None-Match'];
  const specific = SETUPS[operationId] && SETUPS[operationId][status];
  if (specific) {
    const tools = {
      route,
      dataDir: DATA_DIR,
      klsDir: KLS_DIR,
      splitUri,
      joinUri,
      setTenant: (value) => setTenant(transaction, route, value),
      setQuery: (name, value) => {
        const uri = splitUri(transaction.request.uri);
        uri.query.set(name, value);
        transaction.request.uri = joinUri(uri);
        transaction.fullPath = transaction.request.uri;
      },
      setLastSegment: (value) => {
        const uri = splitUri(transaction.request.uri);
        uri.segments[uri.segments.length - 1] = value;
        transaction.request.uri = joinUri(uri);
        transaction.fullPath = transaction.request.uri;
      },
      /** Registers cleanup that runs after the transaction (afterEach). */
      after: (cleanup) => {
        transaction.afterSetup = cleanup;
      },
      breakInput: () => breakInput(transaction, route),
      request: (method, uri, body, headers) => request(transaction, method, uri, body, headers),
      tokens: TOKENS,
      skip: (reason) => skip(transaction, reason),
      /** True when this run started the server itself; against a deployment, skips the transaction with `reason`. */
      local: (reason) => {
        if (!ENDPOINT) return true;
        skip(transaction, `${reason} (only in the run that starts its own server)`);
        return false;
      },
      endpoint: ENDPOINT,
      signIn: SIGN_IN,
      appDatabase: APP_DB,
      /** Points the request at a tenant whose file does not open (503); a deployment has none. */
      brokenTenant: () => {
        if (ENDPOINT) skip(transaction, 'needs a tenant whose file cannot be opened (only in the run that starts its own server)');
        else setTenant(transaction, route, BROKEN_TENANT);
      },
      generic: () => new Promise((resolve) => genericSetup(transaction, route, operationId, status, resolve)),
    };
    Promise.resolve()
      .then(() => specific(transaction, tools))
      .then(
        () => done(),
        (err) => {
          transaction.fail = `setup failed: ${err && err.message}`;
          done();
        },
      );
    return;
  }
  genericSetup(transaction, route, operationId, status, done);
});

/** What every transaction of a status needs unless a setup of its operation says otherwise. */
function genericSetup(transaction, route, operationId, status, done) {
  switch (status) {
    case 200:
    case 201:
      return done();
    case 304:
      return fetchEtag(transaction, done);
    case 412:
      // optimistic locking: a tag that names no state of the notebook, note or view (nothing is written)
      transaction.request.headers['If-Match'] = '"stale-contract-test-tag"';
      return done();
    case 400:
      breakInput(transaction, route);
      return done();
    case 404:
      if (!setTenant(transaction, route, UNKNOWN_TENANT)) skip(transaction, 'no tenant input to make unknown');
      return done();
    case 409:
      if (!setTenant(transaction, route, AMBIGUOUS_TENANT)) skip(transaction, 'no tenant input to make ambiguous');
      return done();
    case 413:
      transaction.request.body = JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 1) });
      transaction.request.headers['Content-Length'] = String(Buffer.byteLength(transaction.request.body));
      return done();
    case 415:
      transaction.request.headers['Content-Type'] = 'text/plain';
      return done();
    case 401:
      // no token at all: the bare challenge
      if (!SIGN_IN) skip(transaction, 'the server asks for no token (AUTH_MODE=none)');
      delete transaction.request.headers.Authorization;
      return done();
    case 403:
      // a valid token that grants no role of this server
      if (!SIGN_IN) skip(transaction, 'the server asks for no token (AUTH_MODE=none)');
      else if (!TOKENS.noRole) skip(transaction, 'needs a second token, one without roles (only in the run that starts its own server)');
      else transaction.request.headers.Authorization = `Bearer ${TOKENS.noRole}`;
      return done();
    case 421:
      // a Host header that names none of the server's host names
      if (process.env.CONTRACT_HOST_CHECK !== 'on') skip(transaction, 'the server accepts every Host (sign-in on and ALLOWED_HOSTS unset)');
      else transaction.request.headers.Host = 'misdirected.invalid';
      return done();
    case 431: {
      // a request line over 16 KiB: 64 export filters within their limits, percent-encoded
      const filters = Array.from({ length: 64 }, (_, i) => `filter=${encodeURIComponent(`department:${'\u00fc'.repeat(380)}${i}`)}`).join('&');
      transaction.request.uri += `${transaction.request.uri.includes('?') ? '&' : '?'}${filters}`;
      transaction.fullPath = transaction.request.uri;
      return done();
    }
    case 429:
      if (route.op['x-cost'] === undefined) {
        // the operation reads a tenant file: its 429 is a fetch past TENANT_FETCHES_PER_MINUTE, which needs store mode
        // with a bounded cache (test/api/store-cache-scan.test.ts provokes it); these worlds serve local files
        skip(transaction, 'a tenant fetch past the caller\'s limit happens only in store mode with a bounded cache (test/api/store-cache-scan.test.ts)');
        return done();
      }
      if (ENDPOINT) {
        skip(transaction, "would spend the caller's limit for a minute and refuse the transactions that follow (only in the run that starts its own server)");
        return done();
      }
      return spendLimit(transaction, operationId).then(() => done(), (err) => {
        transaction.fail = `setup failed: ${err.message}`;
        done();
      });
    case 500:
      // declared on every operation for generated clients; a healthy server has no unexpected failure to provoke
      skip(transaction, 'an unexpected failure cannot be provoked from outside (the error middleware writes the problem)');
      return done();
    default:
      // 503 too: each operation's cause (a tenant file, the app database, KLS_DIR) is set up in setups/
      transaction.fail = `no setup provokes ${status} for ${operationId}: add one in contract-tests/setups/ (or a skip there that says why it cannot be reached)`;
      return done();
  }
}

/**
 * Sends the transaction's own request until the server answers 429, so that the transaction itself is refused;
 * every request counts against a per-minute limit whatever it answers. With sign-in as a token of its own
 * subject; without, as the one client address every transaction comes from (beforeAll runs these last).
 */
async function spendLimit(transaction, operationId) {
  let headers = {};
  if (SIGN_IN) {
    const token = TOKENS.limited && TOKENS.limited[operationId];
    if (!token) throw new Error(`run.ts passed no limited token for ${operationId}`);
    headers = { Authorization: `Bearer ${token}` };
    transaction.request.headers.Authorization = headers.Authorization;
  }
  const body = transaction.request.body ? JSON.parse(transaction.request.body) : undefined;
  for (let i = 0; i < 200; i++) {
    const res = await request(transaction, transaction.request.method, transaction.request.uri, body, headers);
    if (res.status === 429) return;
  }
  throw new Error('200 requests did not reach the limit');
}

hooks.afterEach((transaction, done) => {
  Promise.resolve(transaction.afterSetup && transaction.afterSetup()).then(
    () => done(),
    (err) => {
      console.error(`cleanup after ${transaction.name} failed: ${err && err.message}`);
      done();
    },
  );
});

hooks.afterAll((transactions, done) => {
  if (skipped.length) {
    console.log(`skipped ${skipped.length} transactions:\n  ${skipped.join('\n  ')}`);
  }
  done();
});
