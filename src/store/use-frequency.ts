/** The most uses a tenant's count holds: four halvings take any count to 0 (TinyLFU's 4-bit counters). */
export const MAX_USES = 15;

/**
 * How often each tenant was used lately: a count per tenant, at most MAX_USES, every count halved (rounded down) each
 * time `ageEvery()` more uses have been recorded since the last halving. So a tenant no longer used has count 0 after
 * at most four halvings, and one newly used often reaches the counts of the others within one. Tenants with count 0
 * have no entry: the map holds the tenants used in the last four halvings, at most the listed ones.
 */
export class UseFrequency {
  private readonly counts = new Map<string, number>();
  private sinceHalving = 0;

  constructor(private readonly ageEvery: () => number) {}

  /** The tenant's count now. */
  of(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  /** Counts one use of the tenant, halving every count first when a period of uses has passed. */
  record(id: string): void {
    this.sinceHalving += 1;
    if (this.sinceHalving >= this.ageEvery()) this.halve();
    this.counts.set(id, Math.min(MAX_USES, this.of(id) + 1));
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
