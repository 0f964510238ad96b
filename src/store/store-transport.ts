import http from 'node:http';
import https from 'node:https';
import type { StoreDeadlines } from '../config.js';

/** Which time limit a request to the store passed; `slow` is an answer that trickles (STALL_BYTES). */
export type StorePhase = 'connect' | 'first-byte' | 'idle' | 'slow';

/**
 * Least an answer must deliver in each STORE_IDLE_TIMEOUT_MS (or end), two periods in a row: a store that sends a
 * byte now and then is never silent for the idle limit, but holds its download slot without end. 64 KiB in the
 * default 15 s is 4.4 KB/s.
 */
export const STALL_BYTES = 64 * 1024;

/** A request to the store that passed one of its time limits (STORE_*_TIMEOUT_MS). */
export class StoreTimeoutError extends Error {
  readonly code = 'STORE_TIMEOUT';
  constructor(
    readonly phase: StorePhase,
    readonly ms: number,
  ) {
    super(
      phase === 'connect'
        ? `no connection within ${ms} ms`
        : phase === 'first-byte'
          ? `no answer within ${ms} ms`
          : phase === 'idle'
            ? `the answer stalled: no byte for ${ms} ms`
            : `the answer trickled: less than ${STALL_BYTES / 1024} KiB per ${ms} ms`,
    );
    this.name = 'StoreTimeoutError';
  }
}

/** A request to the store cut because the server shuts down. */
export class StoreStoppedError extends Error {
  readonly code = 'STORE_STOPPED';
  constructor() {
    super('stopped: the server shuts down');
    this.name = 'StoreStoppedError';
  }
}

/**
 * The HTTP(S) transport of the object-store client: every request gets the connect, first-byte and idle-read
 * limits (one socket timeout, set anew as the request moves from one phase to the next), and every request in
 * flight can be cut at once (shutdown). A request past a limit is destroyed with StoreTimeoutError: before its
 * answer the request fails, after it the answer's body does, so a download or listing reading it ends.
 */
export class StoreTransport {
  private readonly open = new Map<http.ClientRequest, http.IncomingMessage | null>();
  private stopped = false;

  constructor(
    private readonly base: Pick<typeof http, 'request'>,
    private readonly deadlines: StoreDeadlines,
  ) {}

  /** The transport for an endpoint's scheme. */
  static forScheme(useSSL: boolean, deadlines: StoreDeadlines): StoreTransport {
    return new StoreTransport(useSSL ? https : http, deadlines);
  }

  /** Requests in flight (started, answer not read to its end). */
  get inFlight(): number {
    return this.open.size;
  }

  /** http.request with the store's time limits (the signature the minio client calls). */
  readonly request = ((options: http.RequestOptions, onResponse?: (res: http.IncomingMessage) => void): http.ClientRequest => {
    const { connectMs, firstByteMs, idleMs } = this.deadlines;
    let phase: StorePhase = 'connect';
    // the socket timeout measures silence; these two measure time: the whole wait for the answer's head, and the
    // bytes of each idle period, so that a store sending a byte now and then is given up too
    let connectTimer: NodeJS.Timeout | undefined;
    let firstByteTimer: NodeJS.Timeout | undefined;
    let progressTimer: NodeJS.Timeout | undefined;
    const stopTimers = (): void => {
      clearTimeout(connectTimer);
      clearTimeout(firstByteTimer);
      clearInterval(progressTimer);
    };
    const req = this.base.request(options, (res) => {
      this.open.set(req, res);
      clearTimeout(firstByteTimer);
      phase = 'idle';
      req.setTimeout(idleMs);
      // the pace: two idle periods in a row that each brought less than STALL_BYTES are a trickle (a silent one is
      // the socket timeout's stall). A period after which this process itself was late (its event loop blocked, so
      // nothing was read) is not the store's and is not judged; one short period alone is not either.
      const socket = res.socket;
      let mark = socket.bytesRead;
      let checked = performance.now();
      let shortPeriods = 0;
      progressTimer = setInterval(() => {
        const now = performance.now();
        const late = now - checked > idleMs * 1.5;
        checked = now;
        afterPendingReads(() => {
          const read = socket.bytesRead;
          shortPeriods = !late && read - mark < STALL_BYTES ? shortPeriods + 1 : 0;
          mark = read;
          if (shortPeriods >= 2 && !res.complete && this.open.has(req)) this.cut(req, new StoreTimeoutError('slow', idleMs));
        });
      }, idleMs);
      res.once('close', () => {
        stopTimers();
        this.open.delete(req);
      });
      onResponse?.(res);
    });
    this.open.set(req, null);
    req.once('close', () => {
      // no answer yet, or cut before one (its limits would stay armed, the first-byte one up to its whole time)
      if ((this.open.get(req) ?? null) === null) {
        stopTimers();
        this.open.delete(req);
      }
    });
    // a timer of its own: Node sets a request's socket timeout only once the socket is connected, so it cannot bound
    // the connect (a name that does not resolve, a host that drops the SYN), and the agent's own socket timeout
    // (the global agent's 5 s) would end it at another time than STORE_CONNECT_TIMEOUT_MS
    connectTimer = limitTimer(connectMs, () => {
      if (phase === 'connect' && this.open.has(req)) this.cut(req, new StoreTimeoutError('connect', connectMs));
    });
    req.once('socket', (socket) => {
      const connected = (): void => {
        if (phase !== 'connect') return;
        clearTimeout(connectTimer);
        phase = 'first-byte';
        // the timer bounds the whole wait for the head; no socket timeout meanwhile (it would be the agent's)
        req.setTimeout(0);
        firstByteTimer = limitTimer(firstByteMs, () => {
          if (phase === 'first-byte' && this.open.has(req)) this.cut(req, new StoreTimeoutError('first-byte', firstByteMs));
        });
      };
      if (socket.connecting) socket.once('connect', connected);
      else connected();
    });
    req.on('timeout', () => {
      // a socket back in the agent's pool after its answer ended is not this request's any more; before the answer
      // the connect and first-byte timers alone decide (this would be the agent's socket timeout)
      if (!this.open.has(req) || phase !== 'idle') return;
      const read = req.socket?.bytesRead;
      afterPendingReads(() => {
        // bytes that waited for this process (not for the store) arrived meanwhile: not silent after all
        if (!this.open.has(req) || req.socket?.bytesRead !== read) return;
        this.cut(req, new StoreTimeoutError('idle', idleMs));
      });
    });
    if (this.stopped) process.nextTick(() => this.cut(req, new StoreStoppedError()));
    return req;
  }) as Pick<typeof http, 'request'>['request'];

  /** Cuts every request in flight, and every one started from now on (shutdown). */
  stop(): void {
    this.stopped = true;
    for (const req of [...this.open.keys()]) this.cut(req, new StoreStoppedError());
  }

  private cut(req: http.ClientRequest, err: Error): void {
    const res = this.open.get(req) ?? null;
    this.open.delete(req);
    if (res !== null) res.destroy(err);
    req.destroy(err);
  }
}

/**
 * Runs `judge` once the I/O that is ready now has been handled (setImmediate runs after the poll phase). A time limit
 * is a timer, and timers run before I/O in each turn of the event loop: after this process was busy for a while
 * (a search index built, a burst of requests), a limit would fire although the connection, the answer's head or
 * its bytes already wait to be read. They are read first; the limit then judges what the store did.
 */
function afterPendingReads(judge: () => void): void {
  setImmediate(judge);
}

/**
 * A time limit of `ms`: calls `expire` (after pending reads) once this process has been free to read for `ms`. It
 * ticks every tenth of the limit and counts at most two ticks for a turn that came late: the time the event loop was
 * held (the first request's validators compiled, a search index built) is time in which a store in the same
 * process, or the reads of its answer, could not run, and is not the store's. Judging a timer by how late it fired
 * (once late by half the limit, wait it out again) let a limit fire when the process had been held for just under
 * that and the store, held too, had had a tenth of the limit to answer.
 */
function limitTimer(ms: number, expire: () => void): NodeJS.Timeout {
  const step = Math.min(1000, Math.max(10, ms / 10));
  let counted = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    counted += Math.min(now - last, 2 * step);
    last = now;
    if (counted < ms) return;
    clearInterval(timer);
    afterPendingReads(expire);
  }, step);
  return timer;
}

