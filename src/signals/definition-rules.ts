/** One problem in a definition (contract schema `SignalError`): full message, document path and 1-based line. */
export interface SignalError {
  message: string;
  path: string | null;
  line: number | null;
}

/** The four definition types and the folder and file-name prefix each lives under (docs/signal-language.md). */
export const DEFINITION_KINDS = [
  { type: 'signal', folder: 'signals', prefix: 'probe_' },
  { type: 'perspective', folder: 'perspectives', prefix: 'assessment_' },
  { type: 'thesis', folder: 'theses', prefix: 'hyp_' },
  { type: 'verdict', folder: 'verdicts', prefix: 'diag_' },
] as const;

/** A definition type. */
export type DefinitionType = (typeof DEFINITION_KINDS)[number]['type'];

/** Any definition id: the prefix fixes the type. */
export const PROBE_ID_PATTERN = /^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$/;
/** A signal id: the only kind save writes. */
export const SIGNAL_ID_PATTERN = /^probe_[a-z][a-z0-9_]*$/;
/** Table and column names in a contract. */
export const IDENTIFIER_PATTERN = /^[a-z_][a-z0-9_]*$/;
/** Longest probe_id (the contract's maxLength). */
export const MAX_PROBE_ID_LENGTH = 100;
/** Longest table or column name. */
export const MAX_IDENTIFIER_LENGTH = 64;

/** Comparison operators of a signal contract. */
export const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not_in', 'is_null', 'not_null', 'like'] as const;
/** One comparison operator. */
export type Operator = (typeof OPERATORS)[number];
/** Entity types a signal can report (the Gold registry's). */
export const ENTITY_TYPES = ['Material', 'Case', 'BillingEvent', 'CostCentre'] as const;
/** One entity type. */
export type EntityType = (typeof ENTITY_TYPES)[number];
/** Finding severities, a severity rule's `level`. */
export const SEVERITY_LEVELS = ['high', 'medium', 'low'] as const;
/** One severity level. */
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

/**
 * Bounds that keep hostile definitions cheap to check. The `yaml` package parses about 0.1-1 MB/s depending on the
 * shape of the text (docs/decisions/0010-definition-yaml-off-the-main-thread.md), so the size bounds the parse;
 * the other limits bound the tree and what is built from it.
 */
export const LIMITS = {
  /** Largest YAML text, in UTF-8 bytes (files; a text within `yamlChars` is always within it). */
  yamlBytes: 16_384 * 4,
  /** Largest YAML text, in characters (the contract's maxLength). */
  yamlChars: 16_384,
  /** Deepest nesting of collections (a signal needs 5). */
  depth: 16,
  /** Most aliases (`*name`) in one document; definitions need none. */
  aliases: 8,
  /** Most keys in one mapping (a contract has at most 8). */
  keysPerMapping: 100,
  /** Most items in one list (an `in` condition takes up to `listItems` values). */
  itemsPerList: 1000,
  /** Most nodes (scalars, mappings, lists, aliases; keys included) in one document. */
  nodes: 4000,
  conditions: 100,
  severityRules: 20,
  listItems: 1000,
  evidenceColumns: 100,
  stringChars: 1000,
  errors: 100,
} as const;

/** The kind (folder, prefix) whose prefix `probeId` starts with, or undefined. */
export function kindOfProbeId(probeId: string): (typeof DEFINITION_KINDS)[number] | undefined {
  return DEFINITION_KINDS.find((kind) => probeId.startsWith(kind.prefix));
}

/** A literal value in a contract. */
export type ContractLiteral = string | number | boolean;

/** A checked condition: identifier column, known operator, literal(s) of the right arity. */
export interface CheckedCondition {
  column: string;
  op: Operator;
  value?: ContractLiteral | readonly ContractLiteral[];
}

/** A signal whose contract passed the checker: safe to compile. */
export interface CheckedSignal {
  probe_id: string;
  entity_type: EntityType;
  source: string;
  entity_id: string;
  time_bucket?: string;
  money_at_risk?: string;
  where: readonly CheckedCondition[];
  severity: readonly { level: SeverityLevel; when?: CheckedCondition }[];
  evidence: readonly string[];
}

/** Gold tables of one tenant and their columns, as the tools receive them. */
export interface GoldSchema {
  tenant: string;
  tables: Readonly<Record<string, readonly string[]>>;
}
