import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Document } from 'openapi-backend';

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
   * A validator of `schema`, where `$ref: COMPONENTS_REF + name` names a component (`{ type: 'array', items: { $ref:
   * … } }`). Compile once, at start: each call compiles anew.
   */
  compile(schema: object): ValidateFunction {
    return this.#ajv.compile(schema);
  }
}
