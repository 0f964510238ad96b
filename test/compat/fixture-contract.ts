// A small contract to derive old/new pairs from, one per rule of docs/versioning.md: `fixturePair(change)` is the
// contract before and after `change`. It has what the rules look at: path and query parameters (one from
// components), a request body, a response schema shared by two operations through a component, enums on both
// sides, a nullable and bounded member, a response header and an error status.

/** A contract document as plain data. */
export type Doc = Record<string, any>;

/** The fixture contract at `version`. */
export function fixtureContract(version = '1.0.0'): Doc {
  return {
    openapi: '3.0.3',
    info: { title: 'fixture', version },
    paths: {
      '/items/{item_id}': {
        get: {
          operationId: 'getItem',
          parameters: [
            { name: 'item_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'view', in: 'query', required: false, schema: { type: 'string', enum: ['short', 'full'] } },
            { $ref: '#/components/parameters/Locale' },
          ],
          responses: {
            '200': {
              description: 'The item.',
              headers: { ETag: { schema: { type: 'string' } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
            },
            '404': { description: 'Unknown.', content: { 'application/problem+json': { schema: { type: 'object' } } } },
          },
        },
        put: {
          operationId: 'putItem',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ItemInput' } } } },
          responses: { '200': { description: 'Stored.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
        },
      },
    },
    components: {
      parameters: { Locale: { name: 'locale', in: 'query', required: false, schema: { type: 'string', enum: ['en', 'de'] } } },
      schemas: {
        Item: {
          type: 'object',
          required: ['id', 'kind'],
          additionalProperties: false,
          properties: {
            id: { type: 'string' },
            kind: { type: 'string', enum: ['plain', 'special'] },
            label: { type: 'string', maxLength: 10 },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
        ItemInput: {
          type: 'object',
          required: ['kind'],
          additionalProperties: false,
          properties: {
            kind: { type: 'string', enum: ['plain', 'special'] },
            label: { type: 'string', maxLength: 10, pattern: '^[a-z ]+$' },
            count: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
  };
}

/** The fixture contract before and after `change` (applied to a copy), both at `versions`. */
export function fixturePair(change: (doc: Doc) => void, versions: [string, string] = ['1.0.0', '1.0.0']): [Doc, Doc] {
  const after = fixtureContract(versions[1]);
  change(after);
  return [fixtureContract(versions[0]), after];
}

/** The GET operation of the fixture. */
export const getItem = (doc: Doc): Doc => doc.paths['/items/{item_id}'].get;
/** The PUT operation of the fixture. */
export const putItem = (doc: Doc): Doc => doc.paths['/items/{item_id}'].put;
