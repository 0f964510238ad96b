import type { ContractIndex } from './contract-index.js';

/**
 * The contract's judgement of a problem an operation answers, returned or thrown alike: the operation must
 * declare the status with `application/problem+json`, and (when bodies are checked) the body must fit that
 * response's schema. openapi-backend validates `application/json` responses only, so problems get this check.
 */
export interface ProblemCheck {
  /** Why `body` with `status` breaks the contract of `operationId`; empty when it does not. */
  reasons(operationId: string, status: number, body: unknown): string[];
}

/** The check over the contract's index; `checkBodies` is RESPONSE_VALIDATION (statuses are always checked). */
export function problemCheck(index: ContractIndex, checkBodies: boolean): ProblemCheck {
  return {
    reasons(operationId, status, body) {
      const operation = index.operations.get(operationId);
      if (operation === undefined) return [`operation ${operationId} is not in the contract`];
      const declared = operation.responses[String(status)];
      if (declared === undefined) return [`status ${status} is not declared`];
      if (!declared.problem) return [`status ${status} is not declared as application/problem+json`];
      if (!checkBodies || declared.problemSchema === undefined) return [];
      const validate = index.schemas.componentValidator(declared.problemSchema);
      if (validate(body)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`);
    },
  };
}
