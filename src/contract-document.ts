import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';

/** openapi.yaml as served at /openapi.yaml and /openapi.json, with validators' source and ETags. */
export interface ContractDocument {
  readonly yaml: string;
  readonly json: string;
  readonly document: Document;
  readonly yamlEtag: string;
  readonly jsonEtag: string;
}

/** Strong ETag of a byte string. */
export const etagOf = (data: string | Buffer): string => `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;

/** Loads openapi.yaml from the project root once. */
export function loadContractDocument(root: string): ContractDocument {
  const yaml = fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
  const document = YAML.parse(yaml) as Document;
  const json = JSON.stringify(document);
  return { yaml, json, document, yamlEtag: etagOf(yaml), jsonEtag: etagOf(json) };
}
