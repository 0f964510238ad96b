/**
 * A JSON body already serialised by the code that made it, sent as these bytes. Its maker vouches that it
 * matches the response schema `T` (for search results: every hit is checked against `SearchItem` when the
 * index is built, and the envelope is written from the nine fixed keys), so the edge does not parse and
 * validate it again per response. The bytes may be shared (a cached result) and are never mutated.
 */
export class EncodedJson<T = unknown> {
  /** Phantom: the schema type the bytes stand for; makes `EncodedJson<A>` assignable only where A is. */
  declare readonly schema?: T;

  constructor(readonly bytes: Buffer) {}

  /** The body as a value (tests, debugging); requests never need this. */
  parse(): T {
    return JSON.parse(this.bytes.toString('utf8')) as T;
  }
}
