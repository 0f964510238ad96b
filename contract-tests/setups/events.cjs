// Setups for the tenant's event stream (GET /{tenant}/api/events). Dredd reads an answer to its end, and a stream
// has none: the 200 transaction is read here instead, up to its first event (a cell added through the API after
// the stream began), and checked against the contract (status, media type, declared headers, the ChangeEvent's
// members), then skipped for Dredd; a failed check fails the transaction. The 429 holds the caller's
// EVENTS_STREAMS_PER_CALLER streams open for the transaction. The 503 (the instance cannot hear the other instances,
// or is shutting down) needs PostgreSQL taken away from a listening instance: test/api/stream-tenant-events-cluster.test.ts.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const YAML = require('yaml');

const doc = YAML.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'openapi.yaml'), 'utf8'));
const EVENT_NAMES = new Set(doc.components.schemas.ChangeEventName.enum);
const EVENT_MEMBERS = Object.keys(doc.components.schemas.ChangeEvent.properties).sort();

/** Opens the transaction's stream with `headers`; resolves with the answer and a reader of its events. */
function openStream(transaction, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: transaction.host, port: transaction.port, path: transaction.request.uri, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      const waiting = [];
      res.on('data', (chunk) => {
        text += chunk;
        for (const wake of waiting.splice(0)) wake();
      });
      res.on('end', () => {
        for (const wake of waiting.splice(0)) wake();
      });
      /** Waits until the text read so far holds `count` blocks (ended by an empty line), or the answer ended. */
      const blocks = async (count) => {
        while (text.split('\n\n').length - 1 < count && !res.complete) await new Promise((wake) => waiting.push(wake));
        return text.split('\n\n').slice(0, count);
      };
      resolve({ res, blocks, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

const authorization = (transaction) => (transaction.request.headers.Authorization ? { Authorization: transaction.request.headers.Authorization } : {});

module.exports = {
  streamTenantEvents: {
    200: async (transaction, tools) => {
      // on PostgreSQL a stream opens once the instance hears the others (again, after a setup stopped the database)
      let stream = await openStream(transaction, authorization(transaction));
      for (let tries = 0; stream.res.statusCode === 503 && tries < 300; tries++) {
        stream.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
        stream = await openStream(transaction, authorization(transaction));
      }
      try {
        const { res } = stream;
        if (res.statusCode !== 200) throw new Error(`the stream answered ${res.statusCode}`);
        if (res.headers['content-type'] !== 'text/event-stream') throw new Error(`the stream's media type is ${res.headers['content-type']}`);
        for (const name of ['x-build-label', 'cache-control']) if (!res.headers[name]) throw new Error(`the stream's answer lacks ${name}`);
        const [beginning] = await stream.blocks(1);
        if (!/^retry: \d+\nid: \S+$/.test(beginning)) throw new Error(`the stream began with ${JSON.stringify(beginning)}`);
        const tenant = tools.splitUri(transaction.request.uri).segments[1];
        const added = await tools.request('POST', `/${tenant}/api/notebook/cells`, { cell: { type: 'narrative', text: { en: 'contract test' } } }, authorization(transaction));
        if (added.status !== 201) throw new Error(`adding a cell answered ${added.status}`);
        const [, event] = await stream.blocks(2);
        const fields = Object.fromEntries((event || '').split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
        if (!EVENT_NAMES.has(fields.event) || fields.event !== 'notebook-cell-added') throw new Error(`the first event is ${JSON.stringify(event)}`);
        const data = JSON.parse(fields.data);
        if (JSON.stringify(Object.keys(data).sort()) !== JSON.stringify(EVENT_MEMBERS)) throw new Error(`the event's data has the members ${Object.keys(data)}`);
        if (data.etag !== added.headers.etag) throw new Error(`the event's etag ${data.etag} is not the write's ${added.headers.etag}`);
      } finally {
        stream.close();
      }
      tools.skip('read by its setup up to its first event and checked there (Dredd reads an answer to its end; a stream has none)');
    },
    429: async (transaction, tools) => {
      const held = [];
      tools.after(async () => {
        for (const stream of held) stream.close();
        // the server counts a stream until it saw its connection close: wait until one opens again
        for (let tries = 0; tries < 200; tries++) {
          const probe = await openStream(transaction, authorization(transaction));
          probe.close();
          if (probe.res.statusCode === 200) return;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error('no stream opened again after the held ones closed');
      });
      for (let i = 0; i < 1000; i++) {
        const stream = await openStream(transaction, authorization(transaction));
        if (stream.res.statusCode === 429) {
          stream.close();
          return;
        }
        held.push(stream);
      }
      throw new Error('1000 open streams did not reach the bound');
    },
    503: (_transaction, tools) =>
      tools.skip('the instance must lose the other instances (PostgreSQL away) or be shutting down: test/api/stream-tenant-events-cluster.test.ts and the shutdown test of test/api/stream-tenant-events.test.ts'),
  },
};
