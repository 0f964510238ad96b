import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { childEnvironment } from '../child-environment.js';

/** A checker or compiler run that did not produce an answer: crash, time-out, oversized or malformed output. */
export class SignalToolError extends Error {
  constructor(message: string, readonly stderr: string = '') {
    super(message);
    this.name = 'SignalToolError';
  }
}

/** How a tool process is started and bounded. */
export interface ToolLimits {
  /** Wall-clock limit of one run (one request for a warm worker); the process is killed (SIGKILL) past it. */
  timeoutMs: number;
  /** Most bytes read from standard output (one answer line for a warm worker); the process is killed past it. */
  maxOutputBytes: number;
  cwd: string;
}

/** What a finished run printed. */
export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const STDERR_KEPT = 8 * 1024;

/** Starts `argv` without a shell. */
export function startTool(argv: readonly string[], cwd: string): ChildProcessWithoutNullStreams {
  const [command, ...args] = argv;
  if (command === undefined) throw new SignalToolError('empty tool command');
  const child = spawn(command, args, { cwd, env: childEnvironment(), shell: false, windowsHide: true, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined); // a tool that exits early closes the pipe: its exit is what counts
  return child;
}

/** Runs `argv` once (no shell), writing `input` to standard input; rejects with SignalToolError on time-out or overflow. */
export function runToolOnce(argv: readonly string[], input: string, limits: ToolLimits): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = startTool(argv, limits.cwd);
    } catch (err) {
      reject(err);
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: SignalToolError | null = null;
    const stop = (error: SignalToolError): void => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new SignalToolError(`the tool did not finish within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > limits.maxOutputBytes) stop(new SignalToolError(`the tool printed more than ${limits.maxOutputBytes} bytes`));
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT - stderr.length);
    });
    child.once('error', (err) => stop(new SignalToolError(`the tool could not be started: ${err.message}`)));
    child.once('close', (code) => {
      clearTimeout(timer);
      if (failure !== null) reject(new SignalToolError(failure.message, stderr));
      else resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr });
    });
    child.stdin.end(input);
  });
}
