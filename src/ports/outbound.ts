import type { components } from '../../generated/openapi.js';
import type { KlsLease, TenantEntry } from '../tenants/tenants.js';

// The ports that call services outside the server for one operation: the code host (drift) and the language model
// (narratives).

/** Drift of a tenant's build against its remote reference, and how long the answer may be kept. */
export interface DriftAnswer {
  result: components['schemas']['DriftResult'];
  maxAgeSeconds: number;
}

/** Drift of the tenants' builds. */
export interface Drift {
  /** Compares the build commit the tenant's file records with its remote reference (cached per file generation). */
  check(entry: TenantEntry): Promise<DriftAnswer>;
}

/** Languages a narrative can be written in. */
export type NarrativeLocale = 'en' | 'de' | 'fr';

/** The finding to narrate, as the request gives it. */
export interface NarrativeFinding {
  probe_id: string;
  entity_type: string;
  entity_id: string;
  time_bucket: string | null;
  severity: string;
  money_at_risk: number;
  evidence?: unknown;
}

/** A narrative written, or why not; `rows` counts the Gold rows put in the prompt (for the audit line). */
export type WrittenNarrative = { ok: true; narrative: string; model: string; rows: number } | { ok: false; message: string; rows: number };

/** Narratives of findings. */
export interface NarrativeWriter {
  /** 3 to 4 sentences on `finding` in `locale`, or why not; `lease` (the finding's tenant file) is released before the model is called. */
  write(lease: KlsLease, finding: NarrativeFinding, locale: NarrativeLocale): Promise<WrittenNarrative>;
}
