import type { Handler, OperationWith501, Result } from './contract.js';
import { Problem } from '../common/problems.js';

/**
 * The one list of operations this build does not implement yet: each answers 501 problem+json, its contract
 * entry declares that 501, and the Dredd hooks skip exactly these. Empty while every operation is built.
 */
export const NOT_IMPLEMENTED = [] as const satisfies readonly OperationWith501[];

/**
 * Modes of implemented operations that are not built yet (same list, finer grain): the operation answers 501
 * for these parameter values. Empty: every mode is built.
 */
export const NOT_IMPLEMENTED_MODES: Readonly<Record<string, { parameter: string; values: readonly string[] }>> = {};

export type NotImplementedOperation = (typeof NOT_IMPLEMENTED)[number];

/** The handler of an operation on the list. */
export function notImplemented<K extends OperationWith501>(operationId: K): Handler<K> {
  return async (): Promise<Result<K>> => {
    throw new Problem('not-implemented', `${operationId} is not implemented in this build`);
  };
}

/** Handlers for every operation on the list. */
export const notImplementedHandlers = Object.fromEntries(NOT_IMPLEMENTED.map((id) => [id, notImplemented(id)])) as {
  [K in NotImplementedOperation]: Handler<K>;
};
