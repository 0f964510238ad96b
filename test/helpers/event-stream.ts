import http from 'node:http';

/** One event of a Server-Sent Events stream as a client reads it (HTML standard, 9.2.6). */
export interface StreamEvent {
  id: string | null;
  event: string;
  data: string;
}

/** What a stream held before its first event: `retry:` and an `id:` without data. */
export interface StreamStart {
  retry: number | null;
  id: string | null;
}

/**
 * An open event stream read with node:http: its status and headers, its events as they come, its comments, and
 * whether it ended. `next()` waits for the next event (or ending), never for a time.
 */
export class EventStreamClient {
  readonly events: StreamEvent[] = [];
  readonly start: StreamStart = { retry: null, id: null };
  comments = 0;
  ended = false;
  text = '';
  private buffer = '';
  private block: { id: string | null; event: string | null; data: string[] } = { id: null, event: null, data: [] };
  private lastId: string | null = null;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly response: http.IncomingMessage,
    private readonly request: http.ClientRequest,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.text += chunk;
      this.feed(chunk);
      this.wake();
    });
    const done = (): void => {
      this.ended = true;
      this.wake();
    };
    response.on('end', done);
    response.on('close', done);
    response.on('error', done);
  }

  /** Opens `path` of `base` with `headers` (Last-Event-ID, Authorization, Accept-Encoding). */
  static open(base: string, path: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(new URL(path, base), { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        resolve(new EventStreamClient(response.statusCode ?? 0, response.headers, response, request));
      });
      request.on('error', reject);
    });
  }

  /** The body of a refused stream (a problem), read to its end. */
  async body(): Promise<string> {
    await this.until(() => this.ended);
    return this.text;
  }

  /** Waits for what the stream begins with (its `retry:` and `id:`); fails when it ended first. */
  async started(): Promise<string> {
    await this.until(() => this.start.id !== null || this.ended);
    if (this.start.id === null) throw new Error(`the stream ended before it began (${this.status}): ${this.text}`);
    return this.start.id;
  }

  /** Opens streams of `path` until one is answered 200 (a PostgreSQL instance answers 503 until it hears the others). */
  static async openWhenHearing(base: string, path: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    for (let tries = 0; ; tries++) {
      const stream = await EventStreamClient.open(base, path, headers);
      if (stream.status === 200) return stream;
      const body = await stream.body();
      if (stream.status !== 503 || tries > 300) throw new Error(`the stream was answered ${stream.status}: ${body}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until `count` events have come (or the stream ended), and returns them. */
  async take(count: number): Promise<StreamEvent[]> {
    await this.until(() => this.events.length >= count || this.ended);
    if (this.events.length < count) throw new Error(`the stream ended after ${this.events.length} of ${count} events: ${this.text}`);
    return this.events.slice(0, count);
  }

  /** Waits for the first event that `matches` and returns it. */
  async find(matches: (event: StreamEvent) => boolean): Promise<StreamEvent> {
    await this.until(() => this.events.some(matches) || this.ended);
    const found = this.events.find(matches);
    if (found === undefined) throw new Error(`the stream ended without the event: ${this.text}`);
    return found;
  }

  /** Waits until `holds()`, woken by every chunk the stream brings. */
  async until(holds: () => boolean): Promise<void> {
    while (!holds()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** The last `id:` the stream set (what a browser sends back as Last-Event-ID). */
  get lastEventId(): string | null {
    return this.lastId;
  }

  close(): void {
    this.request.destroy();
    this.response.destroy();
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.indexOf('\n');
      if (end < 0) return;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.block.id !== null) this.lastId = this.block.id;
      if (this.block.data.length > 0) this.events.push({ id: this.lastId, event: this.block.event ?? 'message', data: this.block.data.join('\n') });
      else if (this.events.length === 0 && this.block.id !== null) this.start.id = this.block.id;
      this.block = { id: null, event: null, data: [] };
      return;
    }
    if (line.startsWith(':')) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') this.block.id = value;
    else if (field === 'event') this.block.event = value;
    else if (field === 'data') this.block.data.push(value);
    else if (field === 'retry') this.start.retry = Number(value);
  }
}
