/** What a shared body was last sent as: (operation, status, media type) and its validated JSON bytes. */
interface Encoding {
  tag: string;
  bytes: Buffer;
}

/** Bodies marked shared → their encoding once sent (null until then). Weak: a body no cache holds is collected. */
const encodings = new WeakMap<object, Encoding | null>();

/**
 * Marks a JSON body that is handed out again unchanged (e.g. from a result cache): the adapter validates and
 * serialises it on its first response and reuses the bytes for later responses of the same operation, status
 * and media type. The body must never be mutated afterwards.
 */
export function sharedBody<T extends object>(body: T): T {
  if (!encodings.has(body)) encodings.set(body, null);
  return body;
}

const tagOf = (operationId: string, status: number, contentType: string): string => `${operationId} ${status} ${contentType}`;

/** The bytes a shared body was already validated and sent as under this operation, status and media type. */
export function reusedEncoding(body: unknown, operationId: string, status: number, contentType: string): Buffer | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const encoding = encodings.get(body);
  return encoding?.tag === tagOf(operationId, status, contentType) ? encoding.bytes : undefined;
}

/** Serialises a validated JSON body; a shared body keeps its bytes for reusedEncoding. */
export function encodeJson(body: unknown, operationId: string, status: number, contentType: string): string | Buffer {
  if (typeof body !== 'object' || body === null || !encodings.has(body)) return JSON.stringify(body);
  const bytes = Buffer.from(JSON.stringify(body));
  encodings.set(body, { tag: tagOf(operationId, status, contentType), bytes });
  return bytes;
}
