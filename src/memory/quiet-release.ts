import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * How long the server goes without a request before it gives back what the busy period left. Under load V8 lets
 * the old generation grow to twice what its last full collection kept (`--heap-growing-percent=100`) and keeps the
 * pages a full collection frees in a pool; its memory reducer did not return them within 60 s of the last request
 * (docs/decisions/0016-memory.md). Short enough that an idle server is small soon after its users stop, long
 * enough that a pause between two bursts of typing does not pay for a full collection.
 */
export const QUIET_MS = 5000;

/** A pending timer that can be cancelled. */
export interface Timer {
  cancel(): void;
}

/** Where the release gets its time and timers from; tests give their own. */
export interface QuietClock {
  now(): number;
  after(ms: number, run: () => void): Timer;
}

const realClock: QuietClock = {
  now: () => performance.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/**
 * Calls `release` once after each busy period, when `quietMs` have passed since the last request: one timer per
 * busy period, not one per request (a request only records its time).
 */
export class QuietRelease {
  private last = 0;
  private timer: Timer | null = null;
  private stopped = false;

  constructor(
    private readonly release: () => void,
    private readonly quietMs: number = QUIET_MS,
    private readonly clock: QuietClock = realClock,
  ) {}

  /** A request arrived. */
  touch(): void {
    if (this.stopped) return;
    this.last = this.clock.now();
    this.timer ??= this.clock.after(this.quietMs, this.check);
  }

  /** No release after this. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private readonly check = (): void => {
    const quietFor = this.clock.now() - this.last;
    if (quietFor < this.quietMs) {
      this.timer = this.clock.after(this.quietMs - quietFor, this.check);
      return;
    }
    this.timer = null;
    this.release();
  };
}

/**
 * A full collection that also returns V8's pooled pages to the system (V8's "last resort" collection, as under
 * memory pressure), without `--expose-gc` on the command line: the flag is set for a fresh context, whose `gc` is
 * the isolate's. Takes tens of milliseconds on this server's heap, so it runs only once the server is quiet.
 */
export function collectAllGarbage(): void {
  collector ??= exposeGc();
  collector({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let collector: Gc | null = null;

function exposeGc(): Gc {
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as Gc;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
