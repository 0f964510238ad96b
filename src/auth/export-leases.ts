import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Release } from './cost-limits.js';
import { LEASES_TABLE, type Queryable } from './limit-store.js';

// Times are epoch milliseconds on the database's clock, so that instances whose clocks differ agree on expiry.
const DATABASE_NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/** The SQL of the current time in a statement whose parameters before it are `position - 1`. */
type NowSql = (position: number) => string;
const DATABASE_NOW: NowSql = () => DATABASE_NOW_MS;
/** The time as the statement's last parameter. */
const GIVEN_NOW: NowSql = (position) => `$${position}::bigint`;

/** The statements that read the time; each takes its parameters, then the given clock's time when there is one. */
function statementsAt(nowAt: NowSql): { take: string; renew: string; sweep: string } {
  const live = (now: string): string => `FROM jsonb_each(t.leases) AS lease(id, expiry) WHERE (lease.expiry)::bigint > ${now}`;
  const [take, renew, sweep] = [nowAt(5), nowAt(4), nowAt(1)];
  return {
    // One statement decides and records: ON CONFLICT DO UPDATE locks the caller's row and judges its WHERE on the
    // newest version, so two instances admitting at once cannot both take the last slot. Expired leases are dropped.
    take: `
      INSERT INTO ${LEASES_TABLE} AS t (key, leases) VALUES ($1, jsonb_build_object($2::text, ${take} + $3::bigint))
      ON CONFLICT (key) DO UPDATE
        SET leases = (SELECT coalesce(jsonb_object_agg(lease.id, lease.expiry), '{}'::jsonb) ${live(take)}) || excluded.leases
        WHERE (SELECT count(*) ${live(take)}) < $4
      RETURNING 1`,
    renew: `UPDATE ${LEASES_TABLE} SET leases = jsonb_set(leases, ARRAY[$2::text], to_jsonb(${renew} + $3::bigint)) WHERE key = $1 AND leases ? $2`,
    sweep: `DELETE FROM ${LEASES_TABLE} AS t WHERE NOT EXISTS (SELECT 1 ${live(sweep)})`,
  };
}

const GIVE_BACK = `UPDATE ${LEASES_TABLE} SET leases = leases - $2::text WHERE key = $1`;

/**
 * A caller's exports running at once, counted across every instance on one PostgreSQL: each running export holds a
 * lease that expires `leaseMs` after its last renewal and is renewed every third of that while the export runs,
 * so that an instance killed mid-export holds its slots at most `leaseMs` longer.
 */
export class ExportLeases {
  private readonly renewals = new Set<NodeJS.Timeout>();
  private readonly statements: ReturnType<typeof statementsAt>;

  constructor(
    private readonly store: Queryable,
    private readonly limit: number,
    private readonly leaseMs: number,
    private readonly log: Logger,
    /** The clock expiries are set and judged by (epoch ms); null for the database's, which every instance shares. */
    private readonly now: (() => number) | null = null,
  ) {
    this.statements = statementsAt(now === null ? DATABASE_NOW : GIVEN_NOW);
  }

  /** A statement with the given clock's time as its last parameter, when there is one. */
  private statement(text: string, values: unknown[] = []): { text: string; values: unknown[] } {
    return { text, values: this.now === null ? values : [...values, this.now()] };
  }

  /** Takes one of `key`'s slots: its release (the lease renewed until then), or null when all are held. Rejects when the database fails. */
  async take(key: string): Promise<Release | null> {
    const id = randomUUID();
    const taken = await this.store.query(this.statement(this.statements.take, [key, id, this.leaseMs, this.limit]));
    if (taken.rowCount === 0) return null;
    const renewal = setInterval(() => {
      this.store.query(this.statement(this.statements.renew, [key, id, this.leaseMs])).then(
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
    await this.store.query(this.statement(this.statements.sweep));
  }

  /** Stops renewing (shutdown: what still runs is cut off, its leases expire). */
  close(): void {
    for (const renewal of this.renewals) clearInterval(renewal);
    this.renewals.clear();
  }
}
