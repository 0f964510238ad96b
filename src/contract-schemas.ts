import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Document } from 'openapi-backend';
import type { ValidationIssue } from './common/problems.js';
import { toIssues } from './common/validation-issues.js';

const COMPONENTS_ID = 'contract.json';
/** How a schema passed to `ContractSchemas.compile` refers to a component: this, then the component's name. */
export const COMPONENTS_REF = `${COMPONENTS_ID}#/components/schemas/`;

/**
 * The contract's component schemas on one Ajv (every error reported, formats checked), for the checks the server
 * makes of a value outside request validation: a stored cell against its type's schema, a search hit against
 * `SearchItem`, a problem body against its response's schema. Each validator is compiled on first use, once.
 */
export class ContractSchemas {
  readonly #ajv: Ajv;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: Document) {
    // allErrors: a check reports every issue of a value at once, as request validation lists its errors
    this.#ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(this.#ajv, { mode: 'full' });
    this.#ajv.addSchema({ $id: COMPONENTS_ID, components: (document as { components?: unknown }).components }, COMPONENTS_ID);
  }

  /** The validator of `#/components/schemas/<name>`; throws for a name the contract lacks (a programming error). */
  componentValidator(name: string): ValidateFunction {
    let validate = this.#validators.get(name);
    if (validate === undefined) {
      validate = this.#ajv.getSchema(`${COMPONENTS_REF}${name}`);
      if (validate === undefined) throw new Error(`openapi.yaml has no schema ${name}`);
      this.#validators.set(name, validate);
    }
    return validate;
  }

  /**
   * The check of a value against `#/components/schemas/<schemaName>`: every issue, named under the value's `name`
   * (`cell.title`); empty when it is valid. The schema is compiled on its first check, so that a start compiles none.
   */
  check(schemaName: string): (value: unknown, name: string) => ValidationIssue[] {
    return (value, name) => {
      const validate = this.componentValidator(schemaName);
      return validate(value) ? [] : toIssues(validate.errors ?? [], { prefix: name });
    };
  }

  /**
   * A validator of `schema`, where `$ref: COMPONENTS_REF + name` names a component (`{ type: 'array', items: { $ref:
   * … } }`). Compile once, at start: each call compiles anew.
   */
  compile(schema: object): ValidateFunction {
    return this.#ajv.compile(schema);
  }
}
