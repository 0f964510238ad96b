import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { LIMITS, type SignalError } from './definition-rules.js';

/** A parsed definition: the YAML document (with source ranges), line lookup, and the problems found. */
export interface ParsedYaml {
  /** null when the text was refused before parsing or does not parse. */
  doc: Document.Parsed | null;
  lineOf(node: Node | null | undefined): number | null;
  errors: SignalError[];
}

/** Most unclosed `[`/`{` tolerated before parsing (deeper flow nesting can exhaust the parser). */
const MAX_FLOW_OPEN = 64;
/** Largest column at which a line's block content may start (bounds block nesting before parsing). */
const MAX_BLOCK_COLUMN = 256;

/** `message (line N)` with the path in front, as SignalError. */
export function signalError(path: string | null, line: number | null, text: string): SignalError {
  const where = path === null ? '' : `${path}: `;
  return { message: `${where}${text}${line === null ? '' : ` (line ${line})`}`, path, line };
}

/**
 * Parses YAML defensively: size, flow nesting and block indentation are bounded before the parser runs, then
 * nesting depth, alias count and non-scalar keys are checked on the tree. Never throws on bad input.
 */
export function parseYamlSafely(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const lineOf = (node: Node | null | undefined): number | null => {
    const offset = node?.range?.[0];
    return offset === undefined ? null : lineCounter.linePos(offset).line;
  };
  const refused = (line: number | null, message: string): ParsedYaml => ({ doc: null, lineOf, errors: [signalError(null, line, message)] });
  if (text.length > LIMITS.yamlChars || Buffer.byteLength(text) > LIMITS.yamlBytes) {
    return refused(null, `the YAML text is larger than ${LIMITS.yamlChars} characters`);
  }
  if (text.includes('\u0000')) return refused(null, 'the YAML text contains a NUL character');
  const nesting = scanNesting(text);
  if (nesting !== null) return refused(nesting.line, nesting.message);

  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true });
  } catch (err) {
    return refused(null, `the YAML text cannot be parsed: ${(err as Error).message}`);
  }
  if (doc.errors.length > 0) {
    const errors = doc.errors.slice(0, LIMITS.errors).map((error) => {
      const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
      return signalError(null, line, `YAML syntax: ${error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
    });
    return { doc: null, lineOf, errors };
  }
  const shapeErrors = checkTree(doc, lineOf);
  return { doc: shapeErrors.length > 0 ? null : doc, lineOf, errors: shapeErrors };
}

/** Converts a checked document to plain data (aliases expanded within the alias limit). */
export function toPlainData(doc: Document.Parsed): unknown {
  return doc.toJS({ maxAliasCount: LIMITS.aliases });
}

/** A cheap lexical bound on nesting, run before the parser; null when the text is acceptable. */
function scanNesting(text: string): { line: number; message: string } | null {
  let open = 0;
  let line = 1;
  let lineStart = true;
  let column = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\n') {
      line++;
      lineStart = true;
      column = 0;
      continue;
    }
    if (lineStart) {
      // leading spaces and block indicators ("- ", "? ", ": ") each open a level of block nesting
      const next = text[i + 1];
      if (char === ' ' || ((char === '-' || char === '?' || char === ':') && (next === ' ' || next === '\t'))) {
        column++;
        if (column > MAX_BLOCK_COLUMN) return { line, message: `nesting is too deep (block content starts beyond column ${MAX_BLOCK_COLUMN})` };
        continue;
      }
      lineStart = false;
    }
    if (char === '[' || char === '{') {
      open++;
      if (open > MAX_FLOW_OPEN) return { line, message: `nesting is too deep (more than ${MAX_FLOW_OPEN} open brackets)` };
    } else if ((char === ']' || char === '}') && open > 0) {
      open--;
    }
  }
  return null;
}

function checkTree(doc: Document.Parsed, lineOf: (node: Node | null | undefined) => number | null): SignalError[] {
  const errors: SignalError[] = [];
  let aliases = 0;
  const walk = (node: unknown, depth: number): void => {
    if (errors.length > 0 || node === null || node === undefined) return;
    if (isAlias(node)) {
      aliases++;
      if (aliases > LIMITS.aliases) errors.push(signalError(null, lineOf(node), `more than ${LIMITS.aliases} aliases`));
      return;
    }
    if (isScalar(node)) return;
    if (depth > LIMITS.depth) {
      errors.push(signalError(null, lineOf(node as Node), `nesting is deeper than ${LIMITS.depth} levels`));
      return;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (pair.key !== null && !isScalar(pair.key)) {
          errors.push(signalError(null, lineOf(pair.key as Node), 'keys must be plain values, not collections or aliases'));
          return;
        }
        walk(pair.value, depth + 1);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, depth + 1);
    }
  };
  walk(doc.contents, 1);
  return errors;
}
