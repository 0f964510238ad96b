// Deprecation on the wire (docs/versioning.md, "Deprecation"): an operation or parameter marked `deprecated: true`
// in the contract answers with `Deprecation` (RFC 9745), and with `Sunset` (RFC 8594) and `Link`s to its CHANGELOG
// entry when the contract gives them. The headers are worked out once from the document; per response only the
// parameters the request used are looked up.

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/;
/** What a header may carry of a link: an absolute http(s) URL of visible ASCII without `<`, `>`, `"` or spaces. */
const LINK = /^https?:\/\/[!#-;=?-~]+$/;

/** When and how one operation or parameter is deprecated. */
interface Notice {
  /** Unix seconds of `x-deprecated-since`. */
  since: number;
  /** Unix seconds of `x-sunset`, if given. */
  sunset?: number;
  /** `x-deprecation-link`: the CHANGELOG entry, if given. */
  link?: string;
}

/** A deprecated parameter of an operation and how a request is seen to use it. */
interface ParameterNotice extends Notice {
  in: string;
  name: string;
  /** A form-exploded object: its members are query keys of their own, so any key no other parameter declares uses it. */
  exploded: boolean;
}

/** The deprecations of one operation. */
export interface OperationNotices {
  operation: Notice | null;
  parameters: ParameterNotice[];
  /** Query parameter names the operation declares (to tell the keys of an exploded object apart). */
  declared: Set<string>;
}

/** Deprecations by operationId, worked out from the contract by `deprecationsOf`. */
export type Deprecations = ReadonlyMap<string, OperationNotices>;

/** What the headers are worked out from: the request's query and headers. */
export interface RequestUse {
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

function deref(doc: Node, value: unknown): unknown {
  for (let hops = 0; hops < 16 && isNode(value) && typeof value.$ref === 'string'; hops++) {
    const ref = value.$ref;
    if (!ref.startsWith('#/')) return undefined;
    value = ref.slice(2).split('/').reduce<unknown>((node, key) => (isNode(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return value;
}

function seconds(value: unknown): number | null {
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : null;
  if (text === null || !DATE.test(text)) return null;
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** The notice of `node` (an operation or parameter), null when it is not deprecated; problems found are added to `problems`. */
function noticeOf(node: Node, label: string, problems: string[]): Notice | null {
  const deprecated = node.deprecated === true;
  const given = ['x-deprecated-since', 'x-sunset', 'x-deprecation-link'].filter((key) => node[key] !== undefined);
  if (!deprecated) {
    if (given.length > 0) problems.push(`${label}: ${given.join(', ')} without deprecated: true`);
    return null;
  }
  const since = seconds(node['x-deprecated-since']);
  if (since === null) {
    problems.push(`${label}: deprecated: true needs x-deprecated-since, a date (YYYY-MM-DD) or date-time (RFC 3339)`);
    return null;
  }
  const notice: Notice = { since };
  if (node['x-sunset'] !== undefined) {
    const sunset = seconds(node['x-sunset']);
    if (sunset === null) problems.push(`${label}: x-sunset must be a date (YYYY-MM-DD) or date-time (RFC 3339)`);
    else if (sunset < since) problems.push(`${label}: x-sunset is before x-deprecated-since`);
    else notice.sunset = sunset;
  }
  const link = node['x-deprecation-link'];
  if (link !== undefined) {
    if (typeof link !== 'string' || !LINK.test(link)) problems.push(`${label}: x-deprecation-link must be an absolute http(s) URL`);
    else notice.link = link;
  }
  if (notice.sunset !== undefined && notice.link === undefined) problems.push(`${label}: x-sunset needs x-deprecation-link (the CHANGELOG entry)`);
  return notice;
}

/** Every problem with the deprecation extensions of `document` (empty when they are all well-formed). */
export function deprecationProblems(document: unknown): string[] {
  const problems: string[] = [];
  collect(document, problems);
  return problems;
}

function collect(document: unknown, problems: string[]): Map<string, OperationNotices> {
  const notices = new Map<string, OperationNotices>();
  if (!isNode(document) || !isNode(document.paths)) return notices;
  for (const [route, rawItem] of Object.entries(document.paths)) {
    const item = deref(document, rawItem);
    if (!isNode(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isNode(operation)) continue;
      const label = `${method.toUpperCase()} ${route}`;
      const entry: OperationNotices = { operation: noticeOf(operation, label, problems), parameters: [], declared: new Set() };
      const parameters = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
      for (const raw of parameters) {
        const parameter = deref(document, raw);
        if (!isNode(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
        if (parameter.in === 'query') entry.declared.add(parameter.name);
        const notice = noticeOf(parameter, `${label} ${parameter.in} parameter ${parameter.name}`, problems);
        if (notice === null) continue;
        const schema = deref(document, parameter.schema);
        const exploded = parameter.in === 'query' && isNode(schema) && schema.type === 'object' && parameter.explode !== false && (parameter.style ?? 'form') === 'form';
        entry.parameters.push({ ...notice, in: parameter.in, name: parameter.name, exploded });
      }
      if (entry.operation !== null || entry.parameters.length > 0) notices.set(String(operation.operationId ?? label), entry);
    }
  }
  return notices;
}

/** Works out the deprecations of `document` once; throws naming every malformed one (such a contract is not served). */
export function deprecationsOf(document: unknown): Deprecations {
  const problems: string[] = [];
  const notices = collect(document, problems);
  if (problems.length > 0) throw new Error(`the contract's deprecations are malformed:\n- ${problems.join('\n- ')}`);
  return notices;
}

function uses(parameter: ParameterNotice, request: RequestUse, declared: Set<string>): boolean {
  if (parameter.in === 'path') return true;
  if (parameter.in === 'header') return request.headers[parameter.name.toLowerCase()] !== undefined;
  if (parameter.in !== 'query') return false;
  if (request.query[parameter.name] !== undefined) return true;
  return parameter.exploded && Object.keys(request.query).some((key) => !declared.has(key));
}

/**
 * The deprecation headers of a response to `request` of an operation with `entry` (the contract index keeps each
 * operation's), or null when nothing it used is deprecated. Several notices (the operation and parameters) give
 * the earliest date of each kind and every link.
 */
export function deprecationHeaders(entry: OperationNotices, request: RequestUse): Record<string, string> | null {
  const used: Notice[] = entry.parameters.filter((parameter) => uses(parameter, request, entry.declared));
  if (entry.operation !== null) used.push(entry.operation);
  if (used.length === 0) return null;
  const headers: Record<string, string> = { Deprecation: `@${Math.min(...used.map((notice) => notice.since))}` };
  const sunsets = used.flatMap((notice) => (notice.sunset === undefined ? [] : [notice.sunset]));
  if (sunsets.length > 0) headers.Sunset = new Date(Math.min(...sunsets) * 1000).toUTCString();
  const relations = new Set<string>();
  for (const notice of used) {
    if (notice.link === undefined) continue;
    relations.add(`<${notice.link}>; rel="deprecation"`);
    if (notice.sunset !== undefined) relations.add(`<${notice.link}>; rel="sunset"`);
  }
  if (relations.size > 0) headers.Link = [...relations].join(', ');
  return headers;
}
