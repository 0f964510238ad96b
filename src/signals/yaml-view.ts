import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { LIMITS, MAX_IDENTIFIER_LENGTH, type SignalError } from './definition-rules.js';
import { signalError } from './safe-yaml.js';

/** Walks a parsed definition by path, collecting errors with the path and line of the offending member. */
export class YamlView {
  readonly errors: SignalError[] = [];

  constructor(
    private readonly doc: Document.Parsed,
    private readonly lineOfNode: (node: Node | null | undefined) => number | null,
  ) {}

  /** The document's root node. */
  root(): Node | null {
    return this.resolve(this.doc.contents);
  }

  /** Follows an alias to its target. */
  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return (node as Node | null | undefined) ?? null;
  }

  /** Line of a node, or of the nearest node given. */
  lineOf(...nodes: (Node | null | undefined)[]): number | null {
    for (const node of nodes) {
      const line = this.lineOfNode(node);
      if (line !== null) return line;
    }
    return null;
  }

  /** Records one problem (up to the error limit). */
  fail(path: string | null, nodes: (Node | null | undefined)[], text: string): void {
    if (this.errors.length < LIMITS.errors) this.errors.push(signalError(path, this.lineOf(...nodes), text));
  }

  /** The map at `node`, or null after recording an error. */
  map(path: string, node: Node | null, parent: Node | null, what = 'a mapping'): YAMLMap | null {
    if (isMap(node)) return node;
    this.fail(path, [node, parent], node === null ? `is required (${what})` : `must be ${what}`);
    return null;
  }

  /** The sequence at `node`, or null after recording an error. */
  seq(path: string, node: Node | null, parent: Node | null, what = 'a list'): YAMLSeq | null {
    if (isSeq(node)) return node;
    this.fail(path, [node, parent], node === null ? `is required (${what})` : `must be ${what}`);
    return null;
  }

  /** The pairs of a map keyed by their scalar key; unknown keys are errors. */
  members(path: string | null, map: YAMLMap, allowed: readonly string[]): Map<string, Pair<unknown, unknown>> {
    const found = new Map<string, Pair<unknown, unknown>>();
    for (const pair of map.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      const childPath = path === null ? key : `${path}.${key}`;
      if (!allowed.includes(key)) this.fail(childPath, [pair.key as Node], `unknown key "${truncate(key)}"; allowed: ${allowed.join(', ')}`);
      else found.set(key, pair);
    }
    return found;
  }

  /** The value node of a member (aliases followed), null when absent or null. */
  value(pair: Pair<unknown, unknown> | undefined): Node | null {
    if (pair === undefined) return null;
    const node = this.resolve(pair.value);
    if (isScalar(node) && node.value === null) return null;
    return node;
  }

  /** A string scalar, or null after recording an error. */
  text(path: string, node: Node | null, parent: Node | null, required: boolean): string | null {
    if (node === null) {
      if (required) this.fail(path, [parent], 'is required');
      return null;
    }
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.fail(path, [node, parent], 'must be a text');
      return null;
    }
    if (node.value.length > LIMITS.stringChars) {
      this.fail(path, [node], `is longer than ${LIMITS.stringChars} characters`);
      return null;
    }
    return node.value;
  }

  /** A name matching `pattern` and at most MAX_IDENTIFIER_LENGTH characters, or null after recording an error. */
  identifier(path: string, node: Node | null, parent: Node | null, required: boolean, pattern: RegExp, what: string): string | null {
    const value = this.text(path, node, parent, required);
    if (value === null) return null;
    if (value.length > MAX_IDENTIFIER_LENGTH || !pattern.test(value)) {
      this.fail(path, [node, parent], `"${truncate(value)}" is not ${what}`);
      return null;
    }
    return value;
  }
}

/** Shortens a value for an error message. */
export function truncate(value: string, max = 40): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length <= max ? clean : `${clean.slice(0, max)}…`;
}
