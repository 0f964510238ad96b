import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Document } from 'openapi-backend';
import type { ValidationIssue } from '../http/errors.js';

/** The cell types of the contract's `CellInput`. */
export const CELL_TYPES = ['narrative', 'view', 'reference', 'discussion', 'action'] as const;
export type CellType = (typeof CELL_TYPES)[number];

/** Largest cell a notebook or note stores: its members as JSON, a discussion's replies not counted. */
export const CELL_SIZE_LIMIT_BYTES = 64 * 1024;

/**
 * Most cells a notebook or a note holds, and replies a discussion holds: every write answers the whole notebook,
 * so without a bound each write would cost more than the last.
 */
export const CELL_COUNT_LIMITS = { cells: 500, replies: 500 } as const;

const INPUT_SCHEMA: Record<CellType, string> = {
  narrative: 'NarrativeCellInput',
  view: 'ViewCellInput',
  reference: 'ReferenceCellInput',
  discussion: 'DiscussionCellInput',
  action: 'ActionCellInput',
};

/** Checks a cell as it would be stored (after a merge of `updates`) against the contract's cell schemas. */
export interface CellRules {
  /** Issues of `cell` (`{type, ...members, author?}`), named under `name` (`cell`, `updates`); empty when valid. */
  check(cell: Record<string, unknown>, name: string): ValidationIssue[];
}

const cache = new WeakMap<object, CellRules>();

/** The rules compiled from the contract's `*CellInput` and `DiscussionReply` schemas (once per document). */
export function cellRules(document: Document): CellRules {
  const cached = cache.get(document);
  if (cached !== undefined) return cached;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv, { mode: 'full' });
  ajv.addSchema({ $id: 'contract.json', components: (document as { components?: unknown }).components }, 'contract.json');
  const compile = (schema: string): ValidateFunction => ajv.getSchema(`contract.json#/components/schemas/${schema}`)!;
  const byType = new Map<string, ValidateFunction>(CELL_TYPES.map((t) => [t, compile(INPUT_SCHEMA[t])]));
  const replies = ajv.compile({ type: 'array', items: { $ref: 'contract.json#/components/schemas/DiscussionReply' } });

  const rules: CellRules = {
    check(cell, name) {
      const validate = byType.get(String(cell.type));
      if (validate === undefined) return [{ in: 'body', name: `${name}.type`, message: `must be one of ${CELL_TYPES.join(', ')}` }];
      const { replies: replyList, ...members } = cell;
      const issues: ValidationIssue[] = [];
      if (!validate(members)) issues.push(...toIssues(validate.errors ?? [], name));
      if (cell.type === 'discussion' && !replies(replyList)) issues.push(...toIssues(replies.errors ?? [], `${name}.replies`));
      if (Array.isArray(replyList) && replyList.length > CELL_COUNT_LIMITS.replies) {
        issues.push({ in: 'body', name: `${name}.replies`, message: `holds ${replyList.length} replies; a discussion holds at most ${CELL_COUNT_LIMITS.replies}` });
      }
      const size = Buffer.byteLength(JSON.stringify(members));
      if (size > CELL_SIZE_LIMIT_BYTES) {
        issues.push({ in: 'body', name, message: `cell is ${size} bytes as JSON; at most ${CELL_SIZE_LIMIT_BYTES} are allowed` });
      }
      return issues;
    },
  };
  cache.set(document, rules);
  return rules;
}

function toIssues(errors: readonly ErrorObject[], prefix: string): ValidationIssue[] {
  return errors.map((error) => {
    const segments = error.instancePath.split('/').filter((s) => s !== '');
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    if (missing !== undefined) segments.push(missing);
    return {
      in: 'body' as const,
      name: [prefix, ...segments].join('.'),
      message: error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid'),
    };
  });
}
