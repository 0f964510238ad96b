import type { components } from '../../generated/openapi.js';
import type { TenantEntry } from '../tenants/tenants.js';

type Schemas = components['schemas'];

// The port of the signal builder: the definitions of the AFS folder, and the signal contract checker and compiler.

/** Outcome of a load: the file's text, or why there is none. */
export type LoadOutcome = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'link' } | { kind: 'unreadable'; error: string };

/** Outcome of a save: written, refused because the file exists, or refused because the YAML is unfit. */
export type SaveOutcome = { kind: 'saved'; path: string } | { kind: 'exists' } | { kind: 'invalid'; message: string };

/** A checker or compiler that did not answer as a tool should (it failed, timed out or wrote garbage): the handler answers 502. */
export interface ToolFailure {
  toolFailed: string;
  /** What the tool wrote on standard error, for the log. */
  stderr: string;
}

/** The signal builder over the AFS folder and the signal tools. */
export interface SignalBuilder {
  /** Every definition, with whether it applies to the Gold tables of `entry`'s file. */
  list(entry: TenantEntry): Promise<Schemas['SignalListItem'][]>;
  load(probeId: string): Promise<LoadOutcome>;
  save(probeId: string, yaml: string, force: boolean): Promise<SaveOutcome>;
  /** Runs the checker, against the Gold tables of `entry`'s file when given. */
  validate(yaml: string, entry: TenantEntry | null): Promise<Schemas['ValidationResult'] | ToolFailure>;
  /** Runs the compiler, against the Gold tables of `entry`'s file when given. */
  compile(yaml: string, entry: TenantEntry | null): Promise<Schemas['CompileSuccess'] | Schemas['CompileFailure'] | ToolFailure>;
}
