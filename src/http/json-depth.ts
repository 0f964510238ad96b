/** Deepest nesting of arrays and objects a JSON request body may have (declared in openapi.yaml, docs/errors.md). */
export const MAX_JSON_DEPTH = 32;

/**
 * Most values (arrays, objects, strings, numbers, `true`, `false`, `null`; member names do not count) a JSON request
 * body may hold, declared like the depth: each costs the parser an allocation and the collector a trace, and 1 MiB
 * of `[[0]],` builds ~350,000 arrays (hundreds of milliseconds on the server's only thread), 1 MiB of `0,` half a
 * million numbers. The largest body an operation needs (a cell update with 500 replies) holds about 3,500.
 */
export const MAX_JSON_VALUES = 20_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LETTER_F = 0x66;
const LETTER_N = 0x6e;
const LETTER_T = 0x74;
const NOTHING = -1;

/** Whether the character starts a number or a literal (`true`, `false`, `null`) where a value may start. */
const startsScalar = (code: number): boolean => (code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS || code === LETTER_T || code === LETTER_F || code === LETTER_N;

/**
 * Why the JSON text is refused before it is parsed: it nests arrays and objects deeper than `maxDepth`, or holds more
 * than `maxValues` values; null when neither. Found in one pass over the characters (nothing is built; brackets
 * inside strings do not count), stopping at the first value past a limit. Run before JSON.parse: a 1 MiB body of
 * nested arrays costs hundreds of milliseconds to build and collect, and every recursive walk of it (validation,
 * size checks) overflows the stack; the scan costs a few milliseconds per MiB. Text that is not JSON is left to the
 * parser to refuse (it may be miscounted: it is refused either way).
 */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): string | null {
  let depth = 0;
  // strings, containers and scalars, less the member names (one per colon)
  let values = 0;
  let previous = NOTHING;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const code = text.charCodeAt(i);
    if (code <= 0x20) continue;
    if (code === QUOTE) {
      values += 1;
      // to the closing quote, stepping over escapes
      for (i += 1; i < length; i += 1) {
        const inString = text.charCodeAt(i);
        if (inString === BACKSLASH) i += 1;
        else if (inString === QUOTE) break;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth += 1;
      values += 1;
      if (depth > maxDepth) return `nests arrays and objects deeper than ${maxDepth} levels`;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth -= 1;
    } else if (code === COLON) {
      values -= 1;
    } else if (startsScalar(code) && (previous === NOTHING || previous === OPEN_ARRAY || previous === COMMA || previous === COLON)) {
      values += 1;
    }
    if (values > maxValues + 1) return `holds more than ${maxValues} values`;
    previous = code;
  }
  return values > maxValues ? `holds more than ${maxValues} values` : null;
}
