import type { ValidationIssue } from '../common/problems.js';

/** One character RFC 3986 allows in a path as it is (`pchar` and `/`); anything else must be percent-encoded. */
const PATH_CHARACTER = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/** A path of characters allowed as they are, without escapes: nothing in it to refuse (most requests). */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/** A well-formed percent-encoded octet. */
const PERCENT_OCTET = /^%[0-9A-Fa-f]{2}/;

/**
 * The request path as a valid URI reference (RFC 3986), for a problem's `instance`: every character a URI may not
 * hold as it is (`[`, `|`, a backtick, a space, non-ASCII) and every `%` that starts no percent-encoded octet are
 * percent-encoded; a path that is already valid is returned unchanged.
 */
export function asUriReference(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i += 1) {
    const char = path[i]!;
    if (char === '%') out += PERCENT_OCTET.test(path.slice(i, i + 3)) ? '%' : '%25';
    else if (PATH_CHARACTER.test(char)) out += char;
    else {
      // a lone surrogate cannot be UTF-8 encoded: it is written as U+FFFD's octets
      const code = path.codePointAt(i)!;
      const whole = code > 0xffff ? path.slice(i, i + 2) : char;
      if (code > 0xffff) i += 1;
      out += encodeURIComponent(code >= 0xd800 && code <= 0xdfff ? '\ufffd' : whole);
    }
  }
  return out;
}

/**
 * Why the path of a request routed to the path template `template` cannot be read, as a validation issue naming
 * the parameter (or '' for a literal segment); null when every segment is made of characters a URI may hold and
 * decodes to UTF-8 text. A segment with `[`, `]`, `{`, `}`, `|`, `^`, `\`, a backtick or another character outside
 * RFC 3986, or with a malformed or overlong escape (`%`, `%zz`, `%c0%ae`), is refused before anything reads it.
 */
export function pathSegmentIssue(path: string, template: string): ValidationIssue | null {
  if (PLAIN_PATH.test(path)) return null;
  const segments = path.split('/');
  const names = template.split('/');
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    const reason = segmentProblem(segment);
    if (reason === null) continue;
    const templated = /^\{(.+)\}$/.exec(names[i] ?? '');
    return { in: 'path', name: templated?.[1] ?? '', message: reason };
  }
  return null;
}

function segmentProblem(segment: string): string | null {
  for (let i = 0; i < segment.length; i += 1) {
    const char = segment[i]!;
    if (char === '%') {
      if (!PERCENT_OCTET.test(segment.slice(i, i + 3))) return 'holds a "%" that starts no percent-encoded octet (%XX)';
      i += 2;
    } else if (!PATH_CHARACTER.test(char)) {
      return `holds ${JSON.stringify(char)}, which a URI path may only carry percent-encoded`;
    }
  }
  try {
    decodeURIComponent(segment);
  } catch {
    return 'is not percent-encoded UTF-8 text';
  }
  return null;
}
