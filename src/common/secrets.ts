/*
 * Secrets in URLs and text, masked before anything is written (docs/configuration.md#secrets): what the server and
 * `ads-appdb` print of a URL — in logs, errors, configuration errors and dry runs — goes through `maskedUrl`, and
 * driver messages that may repeat a URL or a password through `maskedText`.
 */

/** What stands for a secret. */
export const MASK = '***';

/** Query parameter names, lower case without `-`, `_` and `.`, whose values are credentials. */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set(['pwd', 'pass', 'sig', 'auth', 'authorization', 'jwt', 'session']);
/** Parts of a query parameter name (compared as above) that make its value a credential. */
const CREDENTIAL_PARTS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'signature', 'credential', 'apikey'];

/**
 * True when a query parameter of this name carries a credential: `password`, `passwd`, `pwd`, `pass`,
 * `sslpassword`, `passphrase`, anything with `secret`, `token`, `signature` or `credential` in it
 * (`client_secret`, `access_token`, `X-Amz-Signature`, `X-Amz-Credential`), and every name ending in `key`
 * (`key`, `api_key`, `access_key`, `sslkey`). Case, `-`, `_` and `.` do not count.
 */
export function isCredentialName(name: string): boolean {
  const folded = name.toLowerCase().replace(/[-_.]/g, '');
  return CREDENTIAL_NAMES.has(folded) || folded.endsWith('key') || CREDENTIAL_PARTS.some((part) => folded.includes(part));
}

/**
 * The URL as it may be shown: the password of its user info and the values of credential query parameters
 * (isCredentialName) replaced by `***`; a URL with nothing to mask is returned as written. A text that is not a URL, or a URL with an `@`
 * outside its user info (a password holding an unencoded `/`, `?` or `#` puts part of itself in the path or the
 * query, where nothing marks it as a password), is masked whole: its scheme, when it has one, and `***`.
 */
export function maskedUrl(raw: string): string {
  const url = readableUrl(raw);
  if (url === null) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
    return scheme === undefined ? MASK : `${scheme}:${MASK}`;
  }
  // the query is rewritten by hand: URLSearchParams would re-encode every other parameter
  const query = url.search.replace(/^\?/, '');
  const maskedQuery = query.split('&').map(maskedParameter).join('&');
  // nothing to mask: the URL as written, not as the parser spells it (`https://h` stays without a `/`)
  if (url.password === '' && maskedQuery === query) return raw;
  const masked = new URL(url.href);
  if (masked.password !== '') masked.password = MASK;
  masked.search = maskedQuery;
  return masked.href;
}

/**
 * The URL parsed, or null when it is not one or has an `@` outside its user info: read otherwise, part of a password
 * with an unencoded `/`, `?` or `#` would pass for a host, a path or a query.
 */
export function readableUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return (url.pathname + url.search + url.hash).includes('@') ? null : url;
}

function maskedParameter(pair: string): string {
  const equals = pair.indexOf('=');
  if (equals < 0) return pair;
  let name = pair.slice(0, equals);
  try {
    name = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // a name that does not decode is judged as written
  }
  return isCredentialName(name) ? `${pair.slice(0, equals)}=${MASK}` : pair;
}

/** A URL's own secrets as they may appear in a driver's message: its password and credential parameter values, encoded and decoded. */
export function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const secrets = [url.password];
  for (const [name, value] of url.searchParams) if (isCredentialName(name)) secrets.push(value);
  const all = secrets.flatMap((secret) => [secret, encodeURIComponent(secret), safeDecoded(secret)]);
  return [...new Set(all)].filter((secret) => secret !== '');
}

function safeDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Something that looks like a URL with an authority (`scheme://…`) inside a text, up to white space or a quote. The
 * scheme starts where a run of scheme characters starts (the lookbehind): tried at every letter of a long word, the
 * search took time quadratic in its length (a word of 100,000 letters and a `://`: 34 s), and a log line may carry
 * what a client sent.
 */
const URL_IN_TEXT = /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * `text` (an error message, a log line) with every URL in it masked (maskedUrl) and every one of `secrets` (longest
 * first) replaced by `***`.
 */
export function maskedText(text: string, secrets: readonly string[] = []): string {
  // every line the server logs passes here: most hold no URL
  let masked = text.includes('://') ? text.replace(URL_IN_TEXT, (found) => maskedUrl(found)) : text;
  if (secrets.length === 0) return masked;
  for (const secret of [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length)) if (masked.includes(secret)) masked = masked.split(secret).join(MASK);
  return masked;
}
