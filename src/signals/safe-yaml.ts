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
 * the tree is walked once for nesting depth, aliases, nodes, keys per mapping, items per list, non-scalar and
 * duplicate keys. Cost linear in the text's length; never throws on bad input.
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
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, strict: true });
  } catch (err) {
    return refused(null, `the YAML text cannot be parsed: ${(err as Error).message}`);
  }
  // uniqueKeys: false because the package compares each key with every earlier key of its mapping (quadratic);
  // checkTree finds duplicates with one Set per mapping instead.
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

/** The first limit the tree breaks (one walk, each node once), or no errors. */
function checkTree(doc: Document.Parsed, lineOf: (node: Node | null | undefined) => number | null): SignalError[] {
  let nodes = 0;
  let aliases = 0;
  let problem: SignalError | null = null;
  const fail = (node: unknown, text: string): void => {
    problem = signalError(null, lineOf(node as Node), text);
  };
  const walk = (node: unknown, depth: number): void => {
    if (problem !== null || node === null || node === undefined) return;
    if (++nodes > LIMITS.nodes) return fail(node, `more than ${LIMITS.nodes} nodes`);
    if (isAlias(node)) {
      if (++aliases > LIMITS.aliases) fail(node, `more than ${LIMITS.aliases} aliases`);
      return;
    }
    if (isScalar(node)) return;
    if (depth > LIMITS.depth) return fail(node, `nesting is deeper than ${LIMITS.depth} levels`);
    if (isMap(node)) {
      if (node.items.length > LIMITS.keysPerMapping) return fail(node, `a mapping has more than ${LIMITS.keysPerMapping} keys`);
      const keys = new Set<unknown>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (pair.key !== null && !isScalar(pair.key)) return fail(pair.key, 'keys must be plain values, not collections or aliases');
        const key = isScalar(pair.key) ? pair.key.value : null;
        if (keys.has(key)) return fail(pair.key ?? node, `the key ${keyText(key)} appears twice in one mapping`);
        keys.add(key);
        walk(pair.key, depth + 1);
        walk(pair.value, depth + 1);
      }
    } else if (isSeq(node)) {
      if (node.items.length > LIMITS.itemsPerList) return fail(node, `a list has more than ${LIMITS.itemsPerList} items`);
      for (const item of node.items) walk(item, depth + 1);
    }
  };
  walk(doc.contents, 1);
  return problem === null ? [] : [problem];
}

/** A key for a message: quoted, control characters replaced, at most 40 characters. */
function keyText(key: unknown): string {
  const text = String(key).replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(text.length <= 40 ? text : `${text.slice(0, 40)}…`);
}
