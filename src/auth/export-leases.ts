import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Release } from './cost-limits.js';
import { LEASES_TABLE, type Queryable } from './limit-store.js';

// Times are the database's clock in epoch milliseconds, so that instances whose clocks differ agree on expiry.
const NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
const LIVE = `FROM jsonb_each(t.leases) AS lease(id, expiry) WHERE (lease.expiry)::bigint > ${NOW_MS}`;

// One statement decides and records: ON CONFLICT DO UPDATE locks the caller's row and judges its WHERE on the
// newest version, so two instances admitting at once cannot both take the last slot. Expired leases are dropped.
const TAKE = `
  INSERT INTO ${LEASES_TABLE} AS t (key, leases) VALUES ($1, jsonb_build_object($2::text, ${NOW_MS} + $3::bigint))
  ON CONFLICT (key) DO UPDATE
    SET leases = (SELECT coalesce(jsonb_object_agg(lease.id, lease.expiry), '{}'::jsonb) ${LIVE}) || excluded.leases
    WHERE (SELECT count(*) ${LIVE}) < $4
  RETURNING 1`;
const RENEW = `UPDATE ${LEASES_TABLE} SET leases = jsonb_set(leases, ARRAY[$2::text], to_jsonb(${NOW_MS} + $3::bigint)) WHERE key = $1 AND leases ? $2`;
const GIVE_BACK = `UPDATE ${LEASES_TABLE} SET leases = leases - $2::text WHERE key = $1`;
const SWEEP = `DELETE FROM ${LEASES_TABLE} AS t WHERE NOT EXISTS (SELECT 1 ${LIVE})`;

/**
 * A caller's exports running at once, counted across every instance on one PostgreSQL: each running export holds a
 * lease that expires `leaseMs` after its last renewal and is renewed every third of that while the export runs,
 * so that an instance killed mid-export holds its slots at most `leaseMs` longer.
 */
export class ExportLeases {
  private readonly renewals = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: Queryable,
    private readonly limit: number,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {}

  /** Takes one of `key`'s slots: its release (the lease renewed until then), or null when all are held. Rejects when the database fails. */
  async take(key: string): Promise<Release | null> {
    const id = randomUUID();
    const taken = await this.store.query({ text: TAKE, values: [key, id, this.leaseMs, this.limit] });
    if (taken.rowCount === 0) return null;
    const renewal = setInterval(() => {
      this.store.query({ text: RENEW, values: [key, id, this.leaseMs] }).then(
        (renewed) => {
          if (renewed.rowCount === 0) this.log.warn('cost limits: an export outlived its lease; it runs on uncounted');
        },
        () => undefined,
      );
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    renewal.unref();
    this.renewals.add(renewal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      this.renewals.delete(renewal);
      // a release that fails leaves the lease to expire
      this.store.query({ text: GIVE_BACK, values: [key, id] }).catch(() => undefined);
    };
  }

  /** Deletes the rows of callers whose leases all expired. */
  async sweep(): Promise<void> {
    await this.store.query({ text: SWEEP });
  }

  /** Stops renewing (shutdown: what still runs is cut off, its leases expire). */
  close(): void {
    for (const renewal of this.renewals) clearInterval(renewal);
    this.renewals.clear();
  }
}
