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

/** Share of the bound the protected segment may hold; the rest is the probation segment's at least. */
export const PROTECTED_SHARE = 0.8;

/**
 * The bytes of the bounded cache: what each cached tenant's folder holds (settled: measured once its writes are
 * done) plus what writes under way have reserved, never above `maxBytes`. A write reserves before its first byte;
 * room is made by evicting tenants the evictor lets go, never the tenant being written.
 *
 * Which tenants go first is a segmented LRU (decision 22): a tenant enters on probation; used again while cached
 * (a hit) it moves to the protected segment, which holds at most PROTECTED_SHARE of the bound (beyond it, its least
 * recently used tenants move back to the most recent end of probation). Eviction takes probation's least recently
 * used first, then the protected segment's. A scan of tenants used once only ever churns probation, so the tenants
 * in steady use stay. A protected tenant goes only when probation holds no other tenant: one in use there (a read,
 * a fetch, a download on its way in) makes a write wait for it rather than take a protected tenant.
 */
export class CacheBudget {
  /** Settled bytes per tenant used once since it was fetched; iteration order is recency, least recently used first. */
  private readonly probation = new Map<string, number>();
  /** Settled bytes per tenant used again since it was fetched; recency order as above. */
  private readonly protectedSegment = new Map<string, number>();
  private protectedBytes = 0;
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

  /** Tenants with settled bytes in the order they would be evicted: probation, then protected, each least recently used first. */
  tenants(): string[] {
    return [...this.probation.keys(), ...this.protectedSegment.keys()];
  }

  /** Whether the tenant is in the protected segment (used again since it was fetched). */
  isProtected(compositeId: string): boolean {
    return this.protectedSegment.has(compositeId);
  }

  /** The settled bytes of a tenant, undefined when it has none. */
  chargeOf(compositeId: string): number | undefined {
    return this.probation.get(compositeId) ?? this.protectedSegment.get(compositeId);
  }

  /**
   * Marks a cached tenant as the most recently used. `reused` (a hit: it was cached when asked for) moves a tenant on
   * probation to the protected segment; the use that fetched it leaves it on probation.
   */
  touch(compositeId: string, reused = true): void {
    const guarded = this.protectedSegment.get(compositeId);
    if (guarded !== undefined) {
      this.protectedSegment.delete(compositeId);
      this.protectedSegment.set(compositeId, guarded);
      return;
    }
    const bytes = this.probation.get(compositeId);
    if (bytes === undefined) return;
    this.probation.delete(compositeId);
    if (!reused) {
      this.probation.set(compositeId, bytes);
      return;
    }
    this.protectedSegment.set(compositeId, bytes);
    this.protectedBytes += bytes;
    this.demoteBeyondShare();
  }

  /** Records what a tenant's folder holds now (after a write ended or files were deleted); a new tenant enters probation as its most recent. */
  settle(compositeId: string, bytes: number): void {
    const guarded = this.protectedSegment.get(compositeId);
    if (guarded !== undefined) {
      this.used += bytes - guarded;
      this.protectedBytes += bytes - guarded;
      this.protectedSegment.set(compositeId, bytes);
      this.demoteBeyondShare();
      return;
    }
    this.used += bytes - (this.probation.get(compositeId) ?? 0);
    this.probation.set(compositeId, bytes);
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

  /** Forgets a tenant whose files are gone. */
  drop(compositeId: string): void {
    this.guests.delete(compositeId);
    const guarded = this.protectedSegment.get(compositeId);
    if (guarded !== undefined) {
      this.protectedBytes -= guarded;
      this.protectedSegment.delete(compositeId);
    }
    this.used -= guarded ?? this.probation.get(compositeId) ?? 0;
    this.probation.delete(compositeId);
  }

  /** Moves the protected segment's least recently used tenants to the most recent end of probation while it holds more than its share (one stays). */
  private demoteBeyondShare(): void {
    const share = this.maxBytes * PROTECTED_SHARE;
    for (const [id, bytes] of this.protectedSegment) {
      if (this.protectedBytes <= share || this.protectedSegment.size <= 1) return;
      this.protectedSegment.delete(id);
      this.protectedBytes -= bytes;
      this.probation.set(id, bytes);
    }
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
   * The tenants a write into `owner`'s folder may evict, in order: probation's that may go now, then the protected
   * segment's, but only when nothing else is left on probation. A tenant on probation in use (being read, or being
   * downloaded into it) makes the write wait rather than take a protected tenant: a scan's fetches never evict the
   * tenants in steady use.
   */
  private candidates(owner: string): string[] {
    const out: string[] = [];
    let held = false;
    for (const id of this.probation.keys()) {
      if (id === owner) continue;
      if (this.evictor.canEvict(id)) out.push(id);
      else held = true;
    }
    // a tenant being fetched is on its way to probation: it holds probation as one there in use does
    for (const id of this.writing.keys()) if (id !== owner && !this.protectedSegment.has(id)) held = true;
    if (held) return out;
    for (const id of this.protectedSegment.keys()) if (id !== owner && this.evictor.canEvict(id)) out.push(id);
    return out;
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
