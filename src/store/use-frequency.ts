/** The most uses a tenant's count holds: four halvings take any count to 0 (TinyLFU's 4-bit counters). */
export const MAX_USES = 15;

/**
 * How often each tenant was used lately: a count per tenant, at most MAX_USES, every count halved (rounded down) each
 * time `ageEvery()` more uses (of tenants whose count was not full) have been recorded since the last halving: TinyLFU's ageing, with an exact count per
 * tenant instead of a count-min sketch (the keys are the listed tenants, a few thousand at most). So a tenant no
 * longer used has count 0 after at most four halvings, and one newly used often reaches the counts of the others
 * within one. Tenants with count 0 have no entry: the map holds the tenants used in the last four halvings.
 */
export class UseFrequency {
  private readonly counts = new Map<string, number>();
  private sinceHalving = 0;

  constructor(private readonly ageEvery: () => number) {}

  /** The tenant's count now. */
  of(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  /**
   * Counts one use of the tenant, worth `weight`; halves every count first when a period of uses has passed. A use
   * of a tenant whose count is full tells nothing more and does not bring the halving nearer: else a caller's reads
   * of one cached tenant, which cost it nothing, would age every other tenant's count at their rate (cheap hits at 20
   * a step had a hot tenant read six times as often as each tenant of a scan evicted within 20 steps).
   */
  record(id: string, weight = 1): void {
    if (this.of(id) >= MAX_USES) return;
    this.sinceHalving += 1;
    if (this.sinceHalving >= this.ageEvery()) this.halve();
    this.counts.set(id, Math.min(MAX_USES, this.of(id) + weight));
  }

  /** Forgets a tenant that left the store. */
  forget(id: string): void {
    this.counts.delete(id);
  }

  private halve(): void {
    this.sinceHalving = 0;
    for (const [id, count] of this.counts) {
      if (count <= 1) this.counts.delete(id);
      else this.counts.set(id, count >> 1);
    }
  }
}
