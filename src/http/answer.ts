import type Koa from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Readable } from 'node:stream';
import { EncodedJson } from '../common/encoded-json.js';
import { heldTag } from '../common/entity-tags.js';
import type { AuditDetails, RawBody } from '../operations/contract.js';
import type { IndexedOperation } from './contract-index.js';
import { deprecationHeaders } from './deprecation.js';
import { contractViolation } from './problem-answer.js';
import type { RequestRecord } from './request-record.js';


/** A handler's result as the edge reads it (the typed `Result` of operations/contract.ts, any operation). */
export interface AnyResult {
  status: number;
  contentType?: string;
  body?: unknown;
  headers?: Record<string, string>;
  createdIds?: Record<string, string>;
  auditDetails?: AuditDetails;
}

/**
 * Writes a handler's result (never a problem: problems are thrown, to `problemAnswer`): its status and media type
 * must be declared by the operation, a JSON body is validated against the contract when `validate` (RESPONSE_VALIDATION; an `EncodedJson` body
 * was checked by the code that made it), then its headers and the deprecation headers. A 200 whose `ETag` the
 * request's `If-None-Match` names, and a handler's own 304, leave as the one 304 answer (`notModified`). An answer
 * that breaks the contract is thrown as the logged 500 instead.
 */
export function answerResult(ctx: Koa.Context, record: RequestRecord, api: OpenAPIBackend, entry: IndexedOperation, result: AnyResult, validate: boolean): void {
  const { operationId, operation } = entry;
  const declared = entry.responses[String(result.status)];
  if (declared === undefined) throw contractViolation(record, operationId, result.status, [`status ${result.status} is not declared`]);
  const contentType = result.contentType ?? declared.mediaTypes[0];
  if (result.body !== undefined && (contentType === undefined || !declared.mediaTypes.includes(contentType))) {
    throw contractViolation(record, operationId, result.status, [`media type ${String(contentType)} is not declared`]);
  }
  const isJson = contentType === 'application/json';
  const encoded = isJson && result.body instanceof EncodedJson ? result.body.text : undefined;
  if (validate && isJson && encoded === undefined) {
    const outcome = api.validateResponse(result.body, operation, result.status);
    if (outcome.errors) throw contractViolation(record, operationId, result.status, outcome.errors.map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`));
  }
  if (result.headers !== undefined) for (const name of Object.keys(result.headers)) ctx.res.setHeader(name, result.headers[name]!);
  const deprecation = entry.deprecation === null ? null : deprecationHeaders(entry.deprecation, { query: ctx.query, headers: ctx.headers });
  if (deprecation !== null) for (const name of Object.keys(deprecation)) ctx.res.setHeader(name, deprecation[name]!);

  const etag = result.headers?.['ETag'];
  if (etag !== undefined && (result.status === 304 || (result.status === 200 && entry.responses['304'] !== undefined && heldTag(ctx.get('if-none-match'), etag) !== null))) {
    notModified(ctx, etag);
    return;
  }
  ctx.status = result.status;
  if (result.body === undefined) {
    ctx.body = null;
    return;
  }
  // Exactly the declared media type: JSON is UTF-8 by definition (RFC 8259), so no charset is appended. Set
  // before the body, so that Koa does not work one out (and look up its charset) only to have it replaced.
  ctx.res.setHeader('Content-Type', contentType as string);
  ctx.body = isJson ? (encoded ?? JSON.stringify(result.body)) : (result.body as RawBody | Readable);
}

/** The one 304: no body, and the state's tag in the form the client holds (a compressed representation's, maybe). */
function notModified(ctx: Koa.Context, etag: string): void {
  ctx.res.setHeader('ETag', heldTag(ctx.get('if-none-match'), etag) ?? etag);
  ctx.status = 304;
  ctx.body = null;
}
