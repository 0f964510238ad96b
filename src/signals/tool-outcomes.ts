import { checkDefinition } from './definition-check.js';
import type { GoldSchema, SignalError } from './definition-rules.js';
import { signalError } from './safe-yaml.js';
import { compileSignalSql } from './sql-compile.js';

/** The checker's answer (contract schema `ValidationResult`). */
export interface CheckOutcome {
  valid: boolean;
  errors: SignalError[];
}

/** The compiler's answer (contract schema `CompileResult`). */
export type CompileOutcome = { ok: true; sql: string } | { ok: false; errors: SignalError[] };

/** Runs the contract checker on a definition's text. */
export function checkOutcome(text: string, gold: GoldSchema | null): CheckOutcome {
  const { errors } = checkDefinition(text, gold);
  return { valid: errors.length === 0, errors };
}

/** Compiles a definition's text: SQL for a valid signal; errors otherwise, also for a valid non-signal. */
export function compileOutcome(text: string, gold: GoldSchema | null): CompileOutcome {
  const check = checkDefinition(text, gold);
  const errors = [...check.errors];
  if (check.type !== null && check.type !== 'signal') {
    errors.unshift(signalError('type', check.typeLine, `only signals can be compiled, this definition is a ${check.type}`));
  }
  if (errors.length > 0 || check.signal === null) {
    return { ok: false, errors: errors.length > 0 ? errors : [signalError(null, null, 'the definition is not a signal')] };
  }
  return { ok: true, sql: compileSignalSql(check.signal) };
}

/** Reads a Gold schema from untrusted JSON; throws when its shape is wrong. */
export function goldSchemaFrom(value: unknown): GoldSchema {
  const fail = (): never => {
    throw new Error('gold schema must be {"tenant": string, "tables": {"<table>": ["<column>", ...]}}');
  };
  if (typeof value !== 'object' || value === null) return fail();
  const { tenant, tables } = value as { tenant?: unknown; tables?: unknown };
  if (typeof tenant !== 'string' || typeof tables !== 'object' || tables === null || Array.isArray(tables)) return fail();
  const checked: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [table, columns] of Object.entries(tables as Record<string, unknown>)) {
    if (!Array.isArray(columns) || !columns.every((column) => typeof column === 'string')) return fail();
    checked[table] = columns as string[];
  }
  return { tenant, tables: checked };
}
