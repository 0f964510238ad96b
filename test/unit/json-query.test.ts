import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Document } from 'openapi-backend';
import { jsonQueryIssues, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/http/body.js';
import { serveContract } from '../helpers/contract-app.js';
import { call } from '../helpers/http.js';

// an operation with a query parameter that carries JSON (none of openapi.yaml's does in this version)
const document = {
  openapi: '3.0.3',
  info: { title: 'JSON in a query', version: '0.1.0' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        security: [],
        parameters: [
          { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
          { name: 'label', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
          '400': { description: 'invalid', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
    },
  },
  components: { schemas: { Problem: { type: 'object' } } },
} as unknown as Document;

function serve() {
  const log = pino({ level: 'silent' }, new Writable({ write: (_chunk, _enc, done) => done() }));
  return serveContract(document, { listThings: async () => ({ status: 200, body: { ok: true } }) }, { log, responseValidation: true });
}

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('JSON carried in a query parameter', () => {
  it(`answers 400 (in: query) for a value nested deeper than ${MAX_JSON_DEPTH} levels, as for a body`, async () => {
    const s = await serve();
    try {
      const within = await call(s.url, `/things?filter=${encodeURIComponent(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`)}`);
      expect(within.status, within.text).to.equal(200);
      const deep = await call(s.url, `/things?filter=${encodeURIComponent(`{"a":${nested(MAX_JSON_DEPTH)}}`)}`);
      expect(deep.status, deep.text).to.equal(400);
      expect(deep.body.errors).to.deep.equal([{ in: 'query', name: 'filter', message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }]);
    } finally {
      await s.close();
    }
  });

  it(`judges every value of the parameters named, with the value limit of a body, and no other parameter`, () => {
    const many = `[${Array.from({ length: MAX_JSON_VALUES }, () => '0').join(',')}]`;
    expect(jsonQueryIssues(['filter'], { filter: many })).to.deep.equal([{ in: 'query', name: 'filter', message: `holds more than ${MAX_JSON_VALUES} values` }]);
    expect(jsonQueryIssues(['filter'], { filter: ['{}', nested(MAX_JSON_DEPTH + 1)] })).to.have.length(1);
    expect(jsonQueryIssues(['filter'], { filter: '{}', label: nested(MAX_JSON_DEPTH + 1) })).to.deep.equal([]);
  });
});
