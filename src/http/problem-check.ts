import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Document } from 'openapi-backend';

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

type Responses = Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;

/**
 * The contract's judgement of a problem an operation answers, returned or thrown alike: the operation must
 * declare the status with `application/problem+json`, and (when bodies are checked) the body must fit that
 * response's schema. openapi-backend validates `application/json` responses only, so problems get this check.
 */
export interface ProblemCheck {
  /** Why `body` with `status` breaks the contract of `operationId`; empty when it does not. */
  reasons(operationId: string, status: number, body: unknown): string[];
}

/** The check over `document`; `checkBodies` is RESPONSE_VALIDATION (statuses are always checked). */
export function problemCheck(document: Document, checkBodies: boolean): ProblemCheck {
  const responsesOf = new Map<string, Responses>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { operationId?: string; responses?: Responses }>)) {
      if (operation?.operationId !== undefined) responsesOf.set(operation.operationId, operation.responses ?? {});
    }
  }
  let ajv: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  // compiled on first use, once per schema (every problem response names `Problem` today)
  const validatorOf = (schema: unknown): ValidateFunction => {
    const name = schemaName(schema);
    let validate = validators.get(name);
    if (validate === undefined) {
      if (ajv === undefined) {
        ajv = new Ajv({ strict: false, allErrors: false });
        addFormats.default(ajv, { mode: 'full' });
        ajv.addSchema({ $id: 'contract.json', components: (document as { components?: unknown }).components }, 'contract.json');
      }
      validate = ajv.getSchema(`contract.json#/components/schemas/${name}`);
      if (validate === undefined) throw new Error(`openapi.yaml has no schema ${name}`);
      validators.set(name, validate);
    }
    return validate;
  };
  return {
    reasons(operationId, status, body) {
      const responses = responsesOf.get(operationId);
      if (responses === undefined) return [`operation ${operationId} is not in the contract`];
      const declared = resolve(document, responses[String(status)]);
      if (declared === undefined) return [`status ${status} is not declared`];
      const media = declared.content?.[PROBLEM_MEDIA_TYPE];
      if (media === undefined) return [`status ${status} is not declared as ${PROBLEM_MEDIA_TYPE}`];
      if (!checkBodies || media.schema === undefined) return [];
      const validate = validatorOf(media.schema);
      if (validate(body)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`);
    },
  };
}

/** A response object, its `$ref` (to `#/components/responses/…`) followed. */
function resolve(document: Document, response: Responses[string] | undefined): Responses[string] | undefined {
  if (response?.$ref === undefined) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  return (document.components?.responses as Responses | undefined)?.[name];
}

/** The component name of a problem schema (every problem response refers to one). */
function schemaName(schema: unknown): string {
  const ref = (schema as { $ref?: string }).$ref;
  if (ref === undefined || !ref.startsWith('#/components/schemas/')) throw new Error('a problem response schema must be a $ref to #/components/schemas/…');
  return ref.slice('#/components/schemas/'.length);
}
