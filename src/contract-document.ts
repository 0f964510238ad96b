import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import Negotiator from 'negotiator';
import type { Document } from 'openapi-backend';

/** openapi.yaml as served at /openapi.yaml and /openapi.json, with validators' source and ETags. */
export interface ContractDocument {
  readonly yaml: string;
  readonly json: string;
  readonly document: Document;
  readonly yamlEtag: string;
  /** The tag of the same YAML sent as `text/yaml`: a representation of its own (RFC 9110, 8.8.3). */
  readonly yamlTextEtag: string;
  readonly jsonEtag: string;
}

/** Strong ETag of a byte string. */
export const etagOf = (data: string | Buffer): string => `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;

/** Loads openapi.yaml from the project root once. */
export function loadContractDocument(root: string): ContractDocument {
  const yaml = fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
  const document = YAML.parse(yaml) as Document;
  const json = JSON.stringify(document);
  return { yaml, json, document, yamlEtag: etagOf(yaml), yamlTextEtag: etagOf(`text/yaml\n${yaml}`), jsonEtag: etagOf(json) };
}

/** The media types `/openapi.yaml` is sent as: the registered one (RFC 9512) first, the one every client reads as text. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'text/yaml'] as const;

/** One of YAML_MEDIA_TYPES. */
export type YamlMediaType = (typeof YAML_MEDIA_TYPES)[number];

/**
 * The media type to send the YAML contract as for a request's `Accept`: `application/yaml` when it is accepted and
 * `text/yaml` is not preferred (a higher q-value, or named first at the same one; no `Accept` takes either, the first
 * given here), `text/yaml` when that is preferred or neither is accepted. The last case is a client that names only
 * other types, such as OpenAPI Generator's python client, which asks for `application/problem+json` and reads
 * nothing but JSON and `text/*`.
 */
export function yamlMediaTypeFor(accept: string | undefined): YamlMediaType {
  const [preferred] = new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaTypes([...YAML_MEDIA_TYPES]);
  return preferred === 'application/yaml' ? 'application/yaml' : 'text/yaml';
}
