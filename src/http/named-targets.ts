import type { OpenAPIBackend } from 'openapi-backend';
import type { IndexedOperation } from './contract-index.js';
import { pathSegmentIssue } from './path-segments.js';

/** What a request named: the tenant as given (path, query or body member `tenant`) and its IDs. */
export interface NamedTargets {
  tenant: string | null;
  ids: Record<string, string>;
}

/**
 * What the sources (path, query, body) name: the tenant (`tenant`), the IDs (members ending in `_id`, also one
 * level down, as `finding.probe_id`), and a refresh's `scope` and `pack`. The first source naming a member wins.
 */
export function namedIn(sources: readonly unknown[]): NamedTargets {
  const named: NamedTargets = { tenant: null, ids: {} };
  const collect = (source: unknown, prefix: string): void => {
    if (source === null || typeof source !== 'object' || Array.isArray(source)) return;
    for (const [name, value] of Object.entries(source)) {
      if (prefix === '' && typeof value === 'object') collect(value, `${name}.`);
      if (typeof value !== 'string') continue;
      if (prefix === '' && name === 'tenant') named.tenant ??= value;
      else if (name.endsWith('_id') || (prefix === '' && (name === 'pack' || name === 'scope'))) named.ids[prefix + name] ??= value;
    }
  };
  for (const source of sources) collect(source, '');
  return named;
}

/** What a request of `operation` names in its path parameters and query (a path that cannot be decoded: its query). */
export function namedByUrl(api: OpenAPIBackend, operation: IndexedOperation, path: string, query: Readonly<Record<string, unknown>>): NamedTargets {
  if (pathSegmentIssue(path, operation.route) !== null) return namedIn([query]);
  const parsed = api.router.parseRequest({ method: operation.operation.method, path, query: query as Record<string, string>, headers: {} }, operation.operation);
  return namedIn([parsed.params, parsed.query]);
}
