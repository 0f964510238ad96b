/**
 * A JSON body already serialised by the code that made it, sent as this text. Its maker vouches that it
 * matches the response schema `T` (for search results: every hit is checked against `SearchItem` when the
 * index is built, and the envelope is written from the nine fixed keys), so the edge does not parse and
 * validate it again per response. A string, like every other JSON answer: it lives and dies in V8's heap, where a
 * buffer of its own per answer would be external memory, which the collector counts apart.
 */
export class EncodedJson<T = unknown> {
  /** Phantom: the schema type the text stands for; makes `EncodedJson<A>` assignable only where A is. */
  declare readonly schema?: T;

  constructor(readonly text: string) {}

  /** The body as a value (tests, debugging); requests never need this. */
  parse(): T {
    return JSON.parse(this.text) as T;
  }
}
