import type { ValidationIssue } from '../common/problems.js';

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
const UNKNOWN = -2;

/** Whether the character starts a number or a literal (`true`, `false`, `null`) where a value may start. */
const startsScalar = (code: number): boolean => (code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS || code === LETTER_T || code === LETTER_F || code === LETTER_N;

/**
 * Judges JSON text piece by piece as it arrives, without building anything: why it is refused (it nests arrays and
 * objects deeper than `maxDepth`, or holds more than `maxValues` values) at the first value past a limit, so that a
 * request body can be refused before the rest of it is read. One pass over the bytes (brackets inside strings do not
 * count; UTF-8 continuation bytes never look like JSON's ASCII punctuation, so a character split between two pieces
 * is harmless). Run before JSON.parse: a 1 MiB body of nested arrays costs hundreds of milliseconds to build and
 * collect, and every recursive walk of it (validation, size checks) overflows the stack; the scan costs about a
 * millisecond per MiB. Text that is not JSON is left to the parser to refuse (it may be miscounted: it is refused
 * either way).
 */
export class JsonShapeScanner {
  private depth = 0;
  // strings, containers and scalars, less the member names (one per colon)
  private values = 0;
  private previous = NOTHING;
  private inString = false;
  private escaped = false;

  constructor(
    private readonly maxDepth = MAX_JSON_DEPTH,
    private readonly maxValues = MAX_JSON_VALUES,
  ) {}

  /** Judges the next piece of the text (UTF-8); the problem once a limit is passed, else null. */
  push(piece: Uint8Array): string | null {
    const { maxDepth, maxValues } = this;
    let { depth, values, previous, inString, escaped } = this;
    let problem: string | null = null;
    const length = piece.length;
    // where the next quote and backslash of the piece are (NOTHING: none left; UNKNOWN: not looked for yet), so
    // that a string is crossed at indexOf's speed, each byte looked at once however many escapes it holds
    let nextQuote = UNKNOWN;
    let nextBackslash = UNKNOWN;
    for (let i = 0; i < length; i += 1) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        if (nextQuote !== NOTHING && nextQuote < i) nextQuote = piece.indexOf(QUOTE, i);
        if (nextBackslash !== NOTHING && nextBackslash < i) nextBackslash = piece.indexOf(BACKSLASH, i);
        if (nextBackslash !== NOTHING && (nextQuote === NOTHING || nextBackslash < nextQuote)) {
          // the next character is escaped (it may be in the next piece)
          escaped = true;
          i = nextBackslash;
        } else if (nextQuote === NOTHING) {
          break;
        } else {
          inString = false;
          i = nextQuote;
        }
        continue;
      }
      const code = piece[i]!;
      if (code <= 0x20) continue;
      if (code === QUOTE) {
        values += 1;
        inString = true;
      } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        depth += 1;
        values += 1;
        if (depth > maxDepth) {
          problem = `nests arrays and objects deeper than ${maxDepth} levels`;
          break;
        }
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        depth -= 1;
      } else if (code === COLON) {
        values -= 1;
      } else if (startsScalar(code) && (previous === NOTHING || previous === OPEN_ARRAY || previous === COMMA || previous === COLON)) {
        values += 1;
      }
      // one over: the member name counted before its colon takes it back
      if (values > maxValues + 1) {
        problem = `holds more than ${maxValues} values`;
        break;
      }
      previous = code;
    }
    Object.assign(this, { depth, values, previous, inString, escaped });
    return problem;
  }

  /** The problem of the whole text, once every piece was pushed; null when none. */
  end(): string | null {
    return this.values > this.maxValues ? `holds more than ${this.maxValues} values` : null;
  }
}

/** Why the JSON text is refused before it is parsed (see JsonShapeScanner); null when it is not. */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): string | null {
  const scanner = new JsonShapeScanner(maxDepth, maxValues);
  return scanner.push(Buffer.from(text, 'utf8')) ?? scanner.end();
}

/**
 * The values of the query parameters named (those the contract declares with `content: application/json`) that pass
 * a limit of a JSON body, as `errors[]` entries (`in: query`), judged before anything parses them: the same limits
 * hold for JSON wherever a request carries it.
 */
export function jsonQueryIssues(names: readonly string[], query: Readonly<Record<string, string | string[] | undefined>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const raw = query[name];
    const problem = (typeof raw === 'string' ? [raw] : (raw ?? [])).map((value) => jsonShapeProblem(value)).find((found) => found !== null);
    if (problem !== undefined) issues.push({ in: 'query', name, message: problem });
  }
  return issues;
}
