import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { SignalToolError, startTool, type ToolLimits } from './tool-process.js';

interface PendingAnswer {
  id: number;
  resolve: (line: Record<string, unknown>) => void;
  reject: (err: SignalToolError) => void;
}

/**
 * A long-lived tool process speaking JSON lines (`--serve`): one request at a time, each with its own time limit
 * and output cap. A worker that dies, hangs or floods its output is killed and a new one is started for the next
 * request, so a bad definition can cost one answer but never the server.
 */
export class WarmWorker {
  private child: ChildProcessWithoutNullStreams | null = null;
  private ready: Promise<void> | null = null;
  private buffer = '';
  private pending: PendingAnswer | null = null;
  private onReady: (() => void) | null = null;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Processes started so far (1 + restarts). */
  starts = 0;

  constructor(
    private readonly argv: readonly string[],
    private readonly limits: ToolLimits & { startTimeoutMs: number },
  ) {}

  /** Sends one request and waits for its answer (`result` member), in turn with other callers. */
  request(payload: Record<string, unknown>): Promise<unknown> {
    const run = this.queue.then(() => this.send(payload));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Starts the process now rather than on the first request. */
  async warm(): Promise<void> {
    const started = this.queue.then(() => this.ensureStarted());
    this.queue = started.catch(() => undefined);
    await started.catch(() => undefined);
  }

  /** Ends the process; later requests fail. */
  close(): void {
    this.closed = true;
    this.kill(new SignalToolError('the tool worker was closed'));
  }

  private async send(payload: Record<string, unknown>): Promise<unknown> {
    if (this.closed) throw new SignalToolError('the tool worker is closed');
    await this.ensureStarted();
    const child = this.child as ChildProcessWithoutNullStreams;
    const id = this.nextId++;
    const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(new SignalToolError(`the tool did not answer within ${this.limits.timeoutMs} ms`)), this.limits.timeoutMs);
      this.pending = {
        id,
        resolve: (line) => { clearTimeout(timer); resolve(line); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      };
      child.stdin.write(`${JSON.stringify({ ...payload, id })}\n`);
    });
    if (typeof answer['error'] === 'string') throw new SignalToolError(`the tool failed: ${answer['error']}`);
    return answer['result'];
  }

  private ensureStarted(): Promise<void> {
    if (this.child !== null && this.ready !== null) return this.ready;
    this.starts++;
    this.buffer = '';
    const child = startTool(this.argv, this.limits.cwd);
    this.child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.receive(child, chunk));
    child.stderr.resume();
    child.once('error', (err) => this.dropChild(child, new SignalToolError(`the tool could not be started: ${err.message}`)));
    child.once('exit', (code, signal) => this.dropChild(child, new SignalToolError(`the tool exited (${signal ?? `code ${code}`})`)));
    child.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(new SignalToolError(`the tool did not start within ${this.limits.startTimeoutMs} ms`)), this.limits.startTimeoutMs);
      this.onReady = () => { clearTimeout(timer); resolve(); };
      this.pending = { id: -1, resolve: () => undefined, reject: (err) => { clearTimeout(timer); reject(err); } };
    });
    return this.ready;
  }

  private receive(child: ChildProcessWithoutNullStreams, chunk: string): void {
    if (child !== this.child) return;
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.answer(line);
      newline = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > this.limits.maxOutputBytes) {
      this.kill(new SignalToolError(`the tool printed more than ${this.limits.maxOutputBytes} bytes`));
    }
  }

  private answer(line: string): void {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.kill(new SignalToolError('the tool printed a line that is not JSON'));
      return;
    }
    if (parsed['ready'] === true && this.onReady !== null) {
      const onReady = this.onReady;
      this.onReady = null;
      this.pending = null;
      onReady();
      return;
    }
    const pending = this.pending;
    if (pending === null || parsed['id'] !== pending.id) {
      this.kill(new SignalToolError('the tool answered a request it was not sent'));
      return;
    }
    this.pending = null;
    pending.resolve(parsed);
  }

  private kill(reason: SignalToolError): void {
    const child = this.child;
    if (child !== null) {
      child.kill('SIGKILL');
      this.dropChild(child, reason);
    }
  }

  private dropChild(child: ChildProcessWithoutNullStreams, reason: SignalToolError): void {
    if (child !== this.child) return;
    this.child = null;
    this.ready = null;
    this.onReady = null;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(reason);
  }
}
