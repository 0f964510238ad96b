import type { Readable } from 'node:stream';
import type { operations } from '../../generated/openapi.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../ports/deps.js';
import type { EncodedJson } from '../common/encoded-json.js';

/** Every operationId of openapi.yaml. */
export type OperationId = keyof operations;

type Operation<K extends OperationId> = operations[K];
type Parameters<K extends OperationId> = Operation<K>['parameters'];
type Defined<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

/** What a handler receives: path and query values already validated and coerced, the parsed JSON body. */
export interface Input<K extends OperationId> {
  path: Defined<Parameters<K>['path']>;
  query: Defined<Parameters<K>['query']>;
  body: Operation<K> extends { requestBody: { content: infer C } }
    ? C[keyof C]
    : Operation<K> extends { requestBody?: { content: infer C } }
      ? C[keyof C] | undefined
      : undefined;
  headers: Readonly<Record<string, string | undefined>>;
  /** The request's id, for logs. */
  requestId: string;
  /** Who asks: the verified token's subject with sign-in, the local desk user without. */
  caller: Caller;
}

/** Bodies of media types other than JSON: bytes, text or a stream (CSV, PDF, images, HTML). */
export type RawBody = Buffer | string | Readable;

type JsonMediaType = 'application/json';
type Responses<K extends OperationId> = Operation<K>['responses'];
type ContentOf<R> = R extends { content: infer C } ? C : never;

/** What a successful audited read gave away (rows exported, the model a finding went to); getters are read when the line is written. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null | (() => number)>>;

/**
 * For the audit line: IDs a write created that its input does not name (a new view's `view_id`), and what an
 * audited read gave away (`x-audit`).
 */
type Audited = { createdIds?: Record<string, string>; auditDetails?: AuditDetails };

type Variant<S, M, T> = M extends JsonMediaType
  ? { status: S; contentType?: M; body: T | EncodedJson<T>; headers?: Record<string, string> } & Audited
  : { status: S; contentType: M; body: RawBody; headers?: Record<string, string> } & Audited;

/** A problem is thrown (a `Problem`, answered by the one error path), never returned. */
type Answered<C> = Exclude<keyof C, 'application/problem+json'>;

type ResultFor<S, R> = [ContentOf<R>] extends [never]
  ? { status: S; body?: undefined; headers?: Record<string, string> } & Audited
  : { [M in Answered<ContentOf<R>>]: Variant<S, M, ContentOf<R>[M]> }[Answered<ContentOf<R>>];

/** Every status/body pair the contract allows for operation K, and nothing else; problems are thrown. */
export type Result<K extends OperationId> = {
  [S in keyof Responses<K>]: ResultFor<S, Responses<K>[S]>;
}[keyof Responses<K>];

/** The status codes the contract declares for operation K. */
export type StatusOf<K extends OperationId> = keyof Responses<K>;

/** A handler: typed input in, a typed result out. */
export type Handler<K extends OperationId> = (input: Input<K>, deps: Deps) => Promise<Result<K>>;

/** One handler per operation: tsc fails when one is missing or extra. */
export type HandlerMap = { [K in OperationId]: Handler<K> };

