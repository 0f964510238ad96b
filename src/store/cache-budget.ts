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

/**
 * The bytes of the bounded cache: what each cached tenant's folder holds (settled: measured once its writes are
 * done) plus what writes under way have reserved, never above `maxBytes`. A write reserves before its first byte;
 * room is made by evicting the least recently used tenants the evictor lets go, never the tenant being written.
 */
export class CacheBudget {
  /** Settled bytes per tenant; iteration order is recency, least recently used first. */
  private readonly charged = new Map<string, number>();
  private used = 0;
  private reserved = 0;
  private readonly waiting: WaitingReservation[] = [];

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

  /** Tenants with settled bytes, least recently used first. */
  tenants(): string[] {
    return [...this.charged.keys()];
  }

  /** Marks a cached tenant as the most recently used. */
  touch(compositeId: string): void {
    const bytes = this.charged.get(compositeId);
    if (bytes === undefined) return;
    this.charged.delete(compositeId);
    this.charged.set(compositeId, bytes);
  }

  /** Records what a tenant's folder holds now (after a write ended or files were deleted); a new tenant is the most recent. */
  settle(compositeId: string, bytes: number): void {
    this.used += bytes - (this.charged.get(compositeId) ?? 0);
    this.charged.set(compositeId, bytes);
  }

  /** Forgets a tenant whose files are gone. */
  drop(compositeId: string): void {
    this.used -= this.charged.get(compositeId) ?? 0;
    this.charged.delete(compositeId);
  }

  /**
   * Reserves `bytes` for a write into `owner`'s folder, evicting least recently used tenants (never `owner`) until
   * they fit; null, with nothing evicted, when they cannot fit now.
   */
  tryReserve(owner: string, bytes: number): Reservation | null {
    if (!this.makeRoom(owner, bytes)) return null;
    this.reserved += bytes;
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

  /** Whether `bytes` more would fit once every tenant that may go now is gone (owner excepted): evicts nothing. */
  couldFit(owner: string, bytes: number): boolean {
    let free = this.freeBytes;
    for (const [id, charged] of this.charged) if (id !== owner && this.evictor.canEvict(id)) free += charged;
    return bytes <= free;
  }

  private makeRoom(owner: string, bytes: number): boolean {
    if (bytes <= this.freeBytes) return true;
    if (!this.couldFit(owner, bytes)) return false;
    for (const id of [...this.charged.keys()]) {
      if (bytes <= this.freeBytes) break;
      if (id !== owner && this.evictor.canEvict(id)) this.evictor.evict(id);
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
        budget.retryWaiting();
      },
    };
  }
}
