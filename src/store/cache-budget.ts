import { UseFrequency } from './use-frequency.js';

/** What the budget asks of the cache when it must make room: which tenant may go now, and taking it out. */
export interface Evictor {
  /** Whether the tenant's files may be deleted now: no lease in flight, no fetch, no one waiting for it. */
  canEvict(compositeId: string): boolean;
  /** Takes the tenant out of service and deletes its files; the evictor calls drop() for it. */
  evict(compositeId: string): void;
}

/** Bytes set aside for writes into the cache that are under way: a download, a search index build. */
export interface Reservation {
  readonly bytes: number;
  /** Raises the reservation to `bytes`, evicting idle tenants for it; false when there is no room (it stays as it was). */
  grow(bytes: number): boolean;
  /** Gives the bytes back (once; settle the tenant's files first, so that they are never counted by neither). */
  release(): void;
}

/** No room could be made in time: every tenant that would have to go was in use. */
export class NoRoomError extends Error {
  constructor(bytes: number, maxBytes: number) {
    super(`no room in the cache for ${bytes} bytes (of ${maxBytes}): the tenants in it are in use`);
    this.name = 'NoRoomError';
  }
}

interface WaitingReservation {
  owner: string;
  bytes: number;
  granted: (reservation: Reservation) => void;
}

/** Uses recorded between two halvings of the counts, per tenant cached (at least AGEING_MIN_TENANTS): TinyLFU's sample of 10 × the cache's entries. */
export const AGEING_USES_PER_TENANT = 10;
const AGEING_MIN_TENANTS = 10;
/**
 * What a hit (a use of a tenant that was cached) counts, against 1 for the use that fetched it: keeping a tenant pays
 * off by its hits, and a scanned tenant read about as often as the hot one (a scan of 400 tenants a second) had the
 * hot one evicted 281 times in 600 reads when both counted 1 (decision 22).
 */
export const HIT_WEIGHT = 2;

/**
 * The bytes of the bounded cache: what each cached tenant's folder holds (settled: measured once its writes are
 * done) plus what writes under way have reserved, never above `maxBytes`. A write reserves before its first byte;
 * room is made by evicting tenants the evictor lets go, never the tenant being written.
 *
 * Which tenants go first is least frequently used with ageing (decision 22): each use of a tenant counts, a hit
 * twice, whether the tenant is cached or not (UseFrequency: at most 15, every count halved after 10 uses per cached
 * tenant, at least 100, uses of a tenant whose count is full not counted), and eviction takes the tenants used least often lately, the least recently used first
 * among equals. A tenant in use holds back the tenants used more often than it, and a tenant on its way in
 * (downloading) those used more often than the use it is fetched for: a write waits for them rather than take a
 * tenant in steady use. So a scan of tenants read once or twice each churns the tenants read as rarely, and a
 * tenant read more often than each scanned one stays.
 */
export class CacheBudget {
  /** Settled bytes per cached tenant; iteration order is recency, least recently used first. */
  private readonly settled = new Map<string, number>();
  /** Cached tenants used again since they were fetched (a hit): in steady use, their search index built ahead. */
  private readonly reused = new Set<string>();
  private readonly uses = new UseFrequency(() => AGEING_USES_PER_TENANT * Math.max(AGEING_MIN_TENANTS, this.settled.size));
  private used = 0;
  private reserved = 0;
  private readonly waiting: WaitingReservation[] = [];
  /** Reservations under way per owner (a download, an index build). */
  private readonly writing = new Map<string, number>();
  /** Tenants fetched ahead of any use (STORE_WARM) and not used since: their writes take free room only, evicting nothing. */
  private readonly guests = new Set<string>();

  constructor(
    readonly maxBytes: number,
    private readonly evictor: Evictor,
  ) {}

  /** Bytes of the tenants' files as last settled. */
  get usedBytes(): number {
    return this.used;
  }

  /** Bytes reserved by writes under way. */
  get reservedBytes(): number {
    return this.reserved;
  }

  /** Bytes neither used nor reserved. */
  get freeBytes(): number {
    return this.maxBytes - this.used - this.reserved;
  }

  /** Tenants with settled bytes in the order they would be evicted: least frequently used first, then least recently. */
  tenants(): string[] {
    const recency = [...this.settled.keys()];
    const count = new Map(recency.map((id) => [id, this.uses.of(id)]));
    return recency.map((id, at) => ({ id, at })).sort((a, b) => count.get(a.id)! - count.get(b.id)! || a.at - b.at).map((t) => t.id);
  }

  /** Whether the tenant was used again while cached since it was fetched (in steady use). */
  isReused(compositeId: string): boolean {
    return this.reused.has(compositeId);
  }

  /** How often the tenant was used lately (its count, 0 to 15). */
  usesOf(compositeId: string): number {
    return this.uses.of(compositeId);
  }

  /** The settled bytes of a tenant, undefined when it has none. */
  chargeOf(compositeId: string): number | undefined {
    return this.settled.get(compositeId);
  }

  /**
   * Counts a use of the tenant and marks it the most recently used. `reused` (a hit: it was cached when asked for)
   * counts HIT_WEIGHT and marks the tenant as in steady use; the use that fetched it counts 1.
   */
  touch(compositeId: string, reused = true): void {
    this.uses.record(compositeId, reused ? HIT_WEIGHT : 1);
    const bytes = this.settled.get(compositeId);
    if (bytes === undefined) return;
    this.settled.delete(compositeId);
    this.settled.set(compositeId, bytes);
    if (reused) this.reused.add(compositeId);
  }

  /** Records what a tenant's folder holds now (after a write ended or files were deleted); a new tenant enters as the most recent. */
  settle(compositeId: string, bytes: number): void {
    this.used += bytes - (this.settled.get(compositeId) ?? 0);
    this.settled.set(compositeId, bytes);
  }

  /** Has the tenant's writes (its download, its search index) take free room only, until it is used or dropped. */
  admitAsGuest(compositeId: string): void {
    this.guests.add(compositeId);
  }

  /** Whether the tenant was fetched ahead of any use (STORE_WARM) and not used since. */
  isGuest(compositeId: string): boolean {
    return this.guests.has(compositeId);
  }

  /** The tenant is in use: its writes may evict others again. */
  welcome(compositeId: string): void {
    this.guests.delete(compositeId);
  }

  /** Forgets a tenant whose files are gone (its count of uses stays: it tells how often it is asked for, cached or not). */
  drop(compositeId: string): void {
    this.guests.delete(compositeId);
    this.reused.delete(compositeId);
    this.used -= this.settled.get(compositeId) ?? 0;
    this.settled.delete(compositeId);
  }

  /** Forgets a tenant that left the store, its count of uses too. */
  forget(compositeId: string): void {
    this.drop(compositeId);
    this.uses.forget(compositeId);
  }

  /**
   * Reserves `bytes` for a write into `owner`'s folder, evicting tenants in eviction order (never `owner`) until
   * they fit; null, with nothing evicted, when they cannot fit now.
   */
  tryReserve(owner: string, bytes: number): Reservation | null {
    if (!this.makeRoom(owner, bytes)) return null;
    this.reserved += bytes;
    this.writing.set(owner, (this.writing.get(owner) ?? 0) + 1);
    return this.reservation(owner, bytes);
  }

  /**
   * Reserves as tryReserve does, waiting up to `waitMs` (in order of arrival) for tenants in use to become idle;
   * rejects with NoRoomError past it, or when `signal` aborts (shutdown).
   */
  reserve(owner: string, bytes: number, waitMs: number, signal?: AbortSignal): Promise<Reservation> {
    const now = this.waiting.length === 0 ? this.tryReserve(owner, bytes) : null;
    if (now !== null) return Promise.resolve(now);
    return new Promise<Reservation>((resolve, reject) => {
      const giveUp = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new NoRoomError(bytes, this.maxBytes));
      };
      const waiter: WaitingReservation = {
        owner,
        bytes,
        granted: (reservation) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(reservation);
        },
      };
      const timer = setTimeout(giveUp, waitMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Tries the waiting reservations again, first come first served: call when a tenant may have become evictable. */
  retryWaiting(): void {
    while (this.waiting.length > 0) {
      const first = this.waiting[0]!;
      const reservation = this.tryReserve(first.owner, first.bytes);
      if (reservation === null) return;
      this.waiting.shift();
      first.granted(reservation);
    }
  }

  /** Whether `bytes` more would fit once every tenant that may go for it now is gone (owner excepted): evicts nothing. */
  couldFit(owner: string, bytes: number): boolean {
    return bytes <= this.freeBytes + this.candidates(owner).reduce((sum, id) => sum + (this.chargeOf(id) ?? 0), 0);
  }

  /**
   * The tenants a write into `owner`'s folder may evict, in eviction order: those that may go now and are used at
   * most as often as every tenant held meanwhile. A tenant in use holds at its count (at least 1); one being downloaded for a request (not
   * cached yet) at its count plus the use it is fetched for. The write waits for those rather than take a tenant
   * used more often: a scan's fetches never evict a tenant read more often than the scanned ones.
   */
  private candidates(owner: string): string[] {
    let holdAt = Infinity;
    // at least the one use it is in: a count aged to 0 during a long lease (a slow export) would otherwise hold back
    // every tenant used since, and no fetch could make room until that lease ends
    for (const id of this.settled.keys()) if (id !== owner && !this.evictor.canEvict(id)) holdAt = Math.min(holdAt, Math.max(1, this.uses.of(id)));
    // a guest (a warm-up fetch) is fetched for no use: a request's write does not wait for it
    for (const id of this.writing.keys()) if (id !== owner && !this.settled.has(id) && !this.guests.has(id)) holdAt = Math.min(holdAt, this.uses.of(id) + 1);
    return this.tenants().filter((id) => id !== owner && this.uses.of(id) <= holdAt && this.evictor.canEvict(id));
  }

  private makeRoom(owner: string, bytes: number): boolean {
    if (bytes <= this.freeBytes) return true;
    if (this.guests.has(owner) || !this.couldFit(owner, bytes)) return false;
    for (const id of this.candidates(owner)) {
      if (bytes <= this.freeBytes) break;
      this.evictor.evict(id);
    }
    return bytes <= this.freeBytes;
  }

  private reservation(owner: string, initial: number): Reservation {
    let bytes = initial;
    let released = false;
    const budget = this;
    return {
      get bytes() {
        return bytes;
      },
      grow(to) {
        if (released || to <= bytes) return !released;
        if (!budget.makeRoom(owner, to - bytes)) return false;
        budget.reserved += to - bytes;
        bytes = to;
        return true;
      },
      release() {
        if (released) return;
        released = true;
        budget.reserved -= bytes;
        const left = (budget.writing.get(owner) ?? 1) - 1;
        if (left > 0) budget.writing.set(owner, left);
        else budget.writing.delete(owner);
        budget.retryWaiting();
      },
    };
  }
}
