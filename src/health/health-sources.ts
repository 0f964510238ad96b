import type { BuildLabel } from '../build-label.js';
import type { Config } from '../config.js';
import type { KlsStore } from '../store/kls-store.js';
import type { Tenants } from '../tenants/tenants.js';
import type { Drain } from './drain.js';

/** What health and readiness are judged from. */
export interface HealthSources {
  readonly config: Pick<Config, 'klsMode' | 'klsDir'>;
  readonly buildLabel: BuildLabel;
  readonly appDb: { ping(): Promise<void> };
  /** Every tenant (the server's registry). */
  readonly tenants: Pick<Tenants, 'list'>;
  /** Store mode's sync; null in local mode. */
  readonly store: KlsStore | null;
  readonly drain: Drain;
}
