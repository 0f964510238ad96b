import Negotiator from 'negotiator';

/**
 * The media types `/openapi.yaml` is sent as: the registered one (RFC 9512) first, then `text/plain` (naming its
 * charset: without one a client reads it as US-ASCII, or as ISO-8859-1 like Python's requests), which every
 * generated client reads as text (a second YAML type such as `text/yaml` gives oapi-codegen's Go client two fields of
 * one name, and its parser decodes every answer whose media type names YAML into the schema's string, which fails).
 */
export const YAML_MEDIA_TYPES = ['application/yaml', 'text/plain; charset=utf-8'] as const;

/** One of YAML_MEDIA_TYPES. */
export type YamlMediaType = (typeof YAML_MEDIA_TYPES)[number];

/**
 * The media type to send the YAML contract as for a request's `Accept`: `application/yaml` when it is accepted and
 * `text/plain` is not preferred (a higher q-value, or named first at the same one; no `Accept` takes either, the first
 * given here), `text/plain` when that is preferred or neither is accepted. The last case is a client that names only
 * other types, such as OpenAPI Generator's python client, which asks for `application/problem+json` and reads
 * nothing but JSON and `text/*`.
 */
export function yamlMediaTypeFor(accept: string | undefined): YamlMediaType {
  const [preferred] = new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaTypes([...YAML_MEDIA_TYPES]);
  return preferred === 'application/yaml' ? 'application/yaml' : 'text/plain; charset=utf-8';
}
