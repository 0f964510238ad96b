// The events of one tenant that an instance keeps for streams that resume with Last-Event-ID, and the IDs they carry.

/** One event as it is sent: its place in the order of every event (`seq`), when it was heard, its text. */
export interface HeldEvent {
  readonly seq: number;
  readonly atMs: number;
  /** The event's lines (`id:`, `event:`, `data:`) and the empty line that ends it. */
  readonly text: string;
}

/** An event ID: `<epoch>-<seq>`; the epoch names the order the sequence counts in (a process, or the app database). */
const EVENT_ID = /^([0-9a-z]{1,16})-([0-9]{1,15})$/;

/** The ID of event `seq` in the order of `epoch`. */
export const eventIdOf = (epoch: string, seq: number): string => `${epoch}-${seq}`;

/** The `seq` an ID names in the order of `epoch`; null for an ID of another order, or not of that form. */
export function seqOf(epoch: string, id: string): number | null {
  const match = EVENT_ID.exec(id.trim());
  if (match === null || match[1] !== epoch) return null;
  return Number(match[2]);
}

/**
 * The last events of a tenant, oldest first: at most `maxEvents`, none older than `maxAgeMs`. `floor` is the `seq`
 * of the newest event let go: a stream that resumes after an older one may have missed events.
 */
export class EventLog {
  private readonly events: HeldEvent[] = [];
  floor = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxAgeMs: number,
  ) {}

  append(event: HeldEvent): void {
    this.events.push(event);
    this.prune(event.atMs);
  }

  /** Lets go of the events past the window at `nowMs`. */
  prune(nowMs: number): void {
    const oldest = nowMs - this.maxAgeMs;
    let drop = 0;
    while (drop < this.events.length && (this.events.length - drop > this.maxEvents || this.events[drop]!.atMs < oldest)) drop++;
    if (drop === 0) return;
    this.floor = Math.max(this.floor, this.events[drop - 1]!.seq);
    this.events.splice(0, drop);
  }

  /** Lets go of the events up to `seq`, and counts what came before it as missed (an event in its place was not kept). */
  cut(seq: number): void {
    let drop = 0;
    while (drop < this.events.length && this.events[drop]!.seq <= seq) drop++;
    this.events.splice(0, drop);
    this.floor = Math.max(this.floor, seq);
  }

  /** The kept events after `seq`, oldest first. */
  after(seq: number): HeldEvent[] {
    let first = this.events.length;
    while (first > 0 && this.events[first - 1]!.seq > seq) first--;
    return this.events.slice(first);
  }

  get size(): number {
    return this.events.length;
  }
}
