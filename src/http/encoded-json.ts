/**
 * A JSON body already serialised by the code that made it, sent as these bytes. Its maker vouches that it
 * matches the response schema `T` (for search results: every hit is checked against `SearchItem` when the
 * index is built, and the envelope is written from the nine fixed keys), so the adapter does not parse and
 * validate it again per response. The bytes are shared and must never be mutated, unless `owned`.
 */
export class EncodedJson<T = unknown> {
  /** Phantom: the schema type the bytes stand for; makes `EncodedJson<A>` assignable only where A is. */
  declare readonly schema?: T;

  /**
   * `owned`: the bytes are the whole of a buffer that belongs to this one answer (nothing else holds it, nothing
   * reads it after), so the adapter gives its memory back once the answer is written instead of leaving it to V8's
   * collector (see `releaseWhenWritten` in adapter.ts).
   */
  constructor(
    readonly bytes: Buffer,
    readonly owned = false,
  ) {}

  /** The body as a value (tests, debugging); requests never need this. */
  parse(): T {
    return JSON.parse(this.bytes.toString('utf8')) as T;
  }
}
