import type { ValidationIssue } from '../common/problems.js';

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

/** Longest author the cell schemas allow (`author` of every `*CellInput`), in characters. */
const AUTHOR_MAX_LENGTH = 200;

/** Checks a value against one of the contract's component schemas: its issues, named under `name`; empty when valid. */
export type SchemaCheck = (value: unknown, name: string) => ValidationIssue[];
/** The checks of the contract's component schemas (`ActionCellInput`, `DiscussionReply`). */
export interface SchemaChecks {
  check(schemaName: string): SchemaCheck;
}

const INPUT_SCHEMA: Record<CellType, string> = {
  narrative: 'NarrativeCellInput',
  view: 'ViewCellInput',
  reference: 'ReferenceCellInput',
  discussion: 'DiscussionCellInput',
  action: 'ActionCellInput',
};

/**
 * The rules a cell keeps as it is stored (`{type, ...members, author?}`), beyond what the request validator checks.
 * A new cell arrived as a valid `CellInput`; what is left is what its schema does not say (its size, an author taken
 * from the caller, which view a view cell shows). A changed cell is the stored one with `updates` merged in, which
 * no request schema describes: it is checked against the schema of its type here.
 */
export class CellRules {
  private readonly byType: ReadonlyMap<string, SchemaCheck>;
  private readonly reply: SchemaCheck;

  constructor(schemaChecks: SchemaChecks) {
    this.byType = new Map(CELL_TYPES.map((type) => [type, schemaChecks.check(INPUT_SCHEMA[type])]));
    this.reply = schemaChecks.check('DiscussionReply');
  }

  /** Issues of a new cell, whose request passed `CellInput` (`author` the one recorded: it may be the caller's name). */
  checkNew(cell: Record<string, unknown>, name: string): ValidationIssue[] {
    const issues: ValidationIssue[] = [];
    if (typeof cell.author === 'string' && [...cell.author].length > AUTHOR_MAX_LENGTH) {
      issues.push({ in: 'body', name: `${name}.author`, message: `must NOT have more than ${AUTHOR_MAX_LENGTH} characters` });
    }
    return [...issues, ...viewChoiceIssues(cell, name), ...sizeIssues(cell, name)];
  }

  /** Issues of a stored cell with `updates` merged in, named under `name` (`updates`); empty when valid. */
  checkMerged(cell: Record<string, unknown>, name: string): ValidationIssue[] {
    const check = this.byType.get(String(cell.type));
    if (check === undefined) return [{ in: 'body', name: `${name}.type`, message: `must be one of ${CELL_TYPES.join(', ')}` }];
    const { replies, ...members } = cell;
    const issues = [...check(members, name), ...viewChoiceIssues(cell, name)];
    if (cell.type === 'discussion') {
      if (!Array.isArray(replies)) issues.push({ in: 'body', name: `${name}.replies`, message: 'must be array' });
      else replies.forEach((reply, i) => issues.push(...this.reply(reply, `${name}.replies.${i}`)));
    }
    if (Array.isArray(replies) && replies.length > CELL_COUNT_LIMITS.replies) {
      issues.push({ in: 'body', name: `${name}.replies`, message: `holds ${replies.length} replies; a discussion holds at most ${CELL_COUNT_LIMITS.replies}` });
    }
    return [...issues, ...sizeIssues(cell, name)];
  }
}

/**
 * A view cell shows a saved view (`view_id`) or an ad-hoc one (`entity` with `params`), or names both. The contract
 * says so in `ViewCellInput`'s description, not as an `anyOf` of the two forms, which OpenAPI Generator's java, go
 * and python clients turn into a wrapper that cannot send a view cell (docs/clients.md).
 */
function viewChoiceIssues(cell: Record<string, unknown>, name: string): ValidationIssue[] {
  if (cell.type !== 'view' || cell.view_id !== undefined || (cell.entity !== undefined && cell.params !== undefined)) return [];
  return [{ in: 'body', name, message: "must have property 'view_id', or both 'entity' and 'params'" }];
}

/** The size limit, on the cell without its replies. */
function sizeIssues(cell: Record<string, unknown>, name: string): ValidationIssue[] {
  const { replies: _replies, ...members } = cell;
  const size = Buffer.byteLength(JSON.stringify(members));
  return size > CELL_SIZE_LIMIT_BYTES ? [{ in: 'body', name, message: `cell is ${size} bytes as JSON; at most ${CELL_SIZE_LIMIT_BYTES} are allowed` }] : [];
}
