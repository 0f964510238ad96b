import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';
import { strongEtag } from './common/entity-tags.js';

/** openapi.yaml as served at /openapi.yaml and /openapi.json, with validators' source and ETags. */
export interface ContractDocument {
  readonly yaml: string;
  readonly json: string;
  readonly document: Document;
  readonly yamlEtag: string;
  /** The tag of the same YAML sent as `text/plain`: a representation of its own (RFC 9110, 8.8.3). */
  readonly yamlTextEtag: string;
  readonly jsonEtag: string;
}

/** Loads openapi.yaml from the project root once. */
export function loadContractDocument(root: string): ContractDocument {
  const yaml = fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
  const document = YAML.parse(yaml) as Document;
  const json = JSON.stringify(document);
  return { yaml, json, document, yamlEtag: strongEtag(yaml), yamlTextEtag: strongEtag(`text/plain\n${yaml}`), jsonEtag: strongEtag(json) };
}
