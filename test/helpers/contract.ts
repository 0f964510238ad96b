import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadContractDocument } from '../../src/contract-document.js';
import { ContractSchemas } from '../../src/contract-schemas.js';
import { searchHitCheck, type SearchHitCheck } from '../../src/search/search-hit.js';

/** One operation of openapi.yaml with what a test needs to call it from its examples. */
export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  statuses: string[];
  /** The path with every template filled from its parameter example, plus the query string of the examples. */
  exampleUrl: string;
  exampleBody: unknown;
  /** The role `x-required-role` names; null for a public operation (`security: []`). */
  role: 'viewer' | 'editor' | 'admin' | null;
  /** The limit on costly work `x-cost` names (`narrative`, `export`, `signal-tool`); null when it has none. */
  cost: string | null;
  /** Where the operation takes a tenant value, if it does. */
  tenantIn: 'path' | 'query' | 'body' | null;
}

type Parameter = { name: string; in: string; example?: unknown; schema?: { example?: unknown } };

/** Reads openapi.yaml and lists its operations (parameters resolved through components). */
export function contractOperations(root = process.cwd()): ContractOperation[] {
  const doc = YAML.parse(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8'));
  const deref = <T>(value: T | { $ref: string }): T => {
    if (value !== null && typeof value === 'object' && '$ref' in value) {
      const target = (value as { $ref: string }).$ref.replace(/^#\//, '').split('/').reduce((node: any, key) => node[key], doc);
      return deref(target as T);
    }
    return value as T;
  };
  const operations: ContractOperation[] = [];
  for (const [route, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete']) {
      const op = item[method];
      if (op === undefined) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref<Parameter>(p));
      let url = route;
      const query = new URLSearchParams();
      for (const p of parameters) {
        const example = p.example ?? p.schema?.example;
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(example)));
        // an object example is a form-exploded parameter: its members are the query keys (`f.active=true`)
        if (p.in === 'query' && example !== null && typeof example === 'object' && !Array.isArray(example)) {
          for (const [key, value] of Object.entries(example)) query.set(key, String(value));
        } else if (p.in === 'query' && example !== undefined) query.set(p.name, String(example));
      }
      const body = op.requestBody === undefined ? undefined : deref<any>(op.requestBody).content?.['application/json']?.example;
      const bodyProperties = op.requestBody === undefined ? {} : (deref<any>(deref<any>(op.requestBody).content?.['application/json']?.schema)?.properties ?? {});
      const tenantParameter = parameters.find((p) => p.name === 'tenant');
      const security = op.security ?? doc.security ?? [];
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: route,
        statuses: Object.keys(op.responses),
        exampleUrl: query.size > 0 ? `${url}?${query}` : url,
        exampleBody: body,
        role: security.length === 0 ? null : op['x-required-role'],
        cost: op['x-cost'] ?? null,
        tenantIn: tenantParameter !== undefined ? (tenantParameter.in as 'path' | 'query') : 'tenant' in bodyProperties ? 'body' : null,
      });
    }
  }
  return operations;
}

/** An operation's example as the request the edge hands openapi-backend: path, query object, JSON headers, body. */
export function exampleRequest(op: ContractOperation): { method: string; path: string; query: Record<string, string | string[]>; headers: Record<string, string>; body: unknown } {
  const [path, search = ''] = op.exampleUrl.split('?');
  return { method: op.method, path: path!, query: Object.fromEntries(new URLSearchParams(search)), headers: { 'content-type': 'application/json', host: 'x' }, body: op.exampleBody };
}

/** The check of search hits against openapi.yaml's `SearchItem`, on the contract's schemas as the server has them. */
export async function contractSearchHitCheck(root = process.cwd()): Promise<SearchHitCheck> {
  const contract = loadContractDocument(root);
  const schemas = new ContractSchemas(contract.document);
  return searchHitCheck(contract.jsonEtag, () => schemas.componentValidator('SearchItem'));
}
