import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inSpan } from '../tracing.js';
import type { GoldSchema, SignalError } from './definition-rules.js';
import { DefinitionParser, PARSER_LIMITS, type ParserLimits } from './definition-parser.js';
import { StoredDefinitions } from './stored-definitions.js';
import type { CheckOutcome, CompileOutcome } from './tool-outcomes.js';
import { runToolOnce, SignalToolError, type ToolLimits, type ToolRun } from './tool-process.js';
import { WarmWorker } from './warm-worker.js';

/** How one tool is run: the bundled CLI as a warm `--serve` worker, or a configured command once per request. */
export interface ToolCommand {
  argv: readonly string[];
  bundled: boolean;
}

/** Limits of the tool processes (docs/signal-language.md, "How the server runs them"). */
export const TOOL_LIMITS = {
  /** One request to a warm worker, or one whole run of a configured command (process start included). */
  timeoutMs: 10_000,
  /** Start of a warm worker, up to its ready line. */
  startTimeoutMs: 30_000,
  /** Largest answer read from a tool. */
  maxOutputBytes: 1024 * 1024,
} as const;

/** The bundled checker or compiler, run from source through tsx or from dist/ with node, beside this module. */
export function bundledCommand(tool: 'checker' | 'compiler'): ToolCommand {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const file = path.join(path.dirname(here), `${tool}-cli${extension}`);
  const node = [process.execPath, '--max-old-space-size=256'];
  return { argv: extension === '.ts' ? [...node, '--import', 'tsx', file] : [...node, file], bundled: true };
}

/**
 * Runs the contract checker and the single-signal compiler as child processes (docs/signal-language.md), and
 * holds the stored definitions: the AFS files as list, save and the signal lookups read them, parsed in a worker
 * thread. No definition YAML is parsed on the server's main thread.
 */
export class SignalTools {
  private readonly workers = new Map<ToolCommand, WarmWorker>();
  /** Definition files read without following links, parsed off the main thread, remembered by file identity. */
  readonly definitions: StoredDefinitions;

  constructor(
    readonly checker: ToolCommand,
    readonly compiler: ToolCommand,
    private readonly cwd: string,
    private readonly limits: { timeoutMs: number; startTimeoutMs: number; maxOutputBytes: number } = TOOL_LIMITS,
    /** Where the temporary definition and schema files go (removed after each run). */
    private readonly tmpRoot: string = os.tmpdir(),
    parserLimits: ParserLimits = PARSER_LIMITS,
  ) {
    this.definitions = new StoredDefinitions(new DefinitionParser(parserLimits));
  }

  /** Writes the YAML to a temporary file and runs the checker on it. */
  validate(yaml: string, gold: GoldSchema | null): Promise<CheckOutcome> {
    return inSpan('signal tool', () => this.check(yaml, gold), { 'signal.tool': 'checker' });
  }

  /** Feeds the YAML to the compiler on standard input. */
  compile(yaml: string, gold: GoldSchema | null): Promise<CompileOutcome> {
    return inSpan('signal tool', () => this.compileOnce(yaml, gold), { 'signal.tool': 'compiler' });
  }

  private async check(yaml: string, gold: GoldSchema | null): Promise<CheckOutcome> {
    const dir = await fs.promises.mkdtemp(path.join(this.tmpRoot, 'ads-signal-'));
    try {
      const file = path.join(dir, 'definition.yaml');
      await fs.promises.writeFile(file, yaml, { mode: 0o600, flag: 'wx' });
      const answer = this.checker.bundled
        ? await this.worker(this.checker).request({ file, gold })
        : parseRun(await runToolOnce([...this.checker.argv, file, ...(await goldArguments(dir, gold))], '', this.runLimits()));
      return toCheckOutcome(answer);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  private async compileOnce(yaml: string, gold: GoldSchema | null): Promise<CompileOutcome> {
    if (this.compiler.bundled) return toCompileOutcome(await this.worker(this.compiler).request({ yaml, gold }));
    const dir = gold === null ? null : await fs.promises.mkdtemp(path.join(this.tmpRoot, 'ads-signal-'));
    try {
      const args = dir === null ? [] : await goldArguments(dir, gold);
      return toCompileOutcome(parseRun(await runToolOnce([...this.compiler.argv, ...args], yaml, this.runLimits())));
    } finally {
      if (dir !== null) await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  /** Starts the warm workers of the bundled tools ahead of the first request. */
  async warm(): Promise<void> {
    await Promise.all([this.checker, this.compiler].filter((tool) => tool.bundled).map((tool) => this.worker(tool).warm()));
  }

  /** Stops the warm workers and the definition parser's thread. */
  close(): void {
    for (const worker of this.workers.values()) worker.close();
    this.workers.clear();
    void this.definitions.parser.close();
  }

  /** How many processes each warm worker has started (restarts show as more than 1). */
  workerStarts(): { checker: number; compiler: number } {
    return { checker: this.workers.get(this.checker)?.starts ?? 0, compiler: this.workers.get(this.compiler)?.starts ?? 0 };
  }

  private worker(tool: ToolCommand): WarmWorker {
    let worker = this.workers.get(tool);
    if (worker === undefined) {
      worker = new WarmWorker([...tool.argv, '--serve'], { ...this.runLimits(), startTimeoutMs: this.limits.startTimeoutMs });
      this.workers.set(tool, worker);
    }
    return worker;
  }

  private runLimits(): ToolLimits {
    return { timeoutMs: this.limits.timeoutMs, maxOutputBytes: this.limits.maxOutputBytes, cwd: this.cwd };
  }
}

async function goldArguments(dir: string, gold: GoldSchema | null): Promise<string[]> {
  if (gold === null) return [];
  const file = path.join(dir, 'gold-schema.json');
  await fs.promises.writeFile(file, JSON.stringify(gold), { mode: 0o600, flag: 'wx' });
  return ['--gold-schema', file];
}

/** A configured command answers with exit code 0 or 1 and one JSON object on standard output. */
function parseRun(run: ToolRun): unknown {
  if (run.code !== 0 && run.code !== 1) throw new SignalToolError(`the tool exited with code ${run.code}`, run.stderr);
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new SignalToolError('the tool did not print one JSON object', run.stderr);
  }
}

function toCheckOutcome(answer: unknown): CheckOutcome {
  const value = answer as { valid?: unknown; errors?: unknown } | null;
  if (value === null || typeof value !== 'object' || typeof value.valid !== 'boolean') throw new SignalToolError('the checker answer is not {valid, errors}');
  const errors = toErrors(value.errors);
  if (value.valid !== (errors.length === 0)) throw new SignalToolError('the checker answer has valid and errors disagreeing');
  return { valid: value.valid, errors };
}

function toCompileOutcome(answer: unknown): CompileOutcome {
  const value = answer as { ok?: unknown; sql?: unknown; errors?: unknown } | null;
  if (value !== null && typeof value === 'object' && value.ok === true && typeof value.sql === 'string' && value.sql !== '') return { ok: true, sql: value.sql };
  if (value !== null && typeof value === 'object' && value.ok === false) {
    const errors = toErrors(value.errors);
    if (errors.length > 0) return { ok: false, errors };
  }
  throw new SignalToolError('the compiler answer is not {ok: true, sql} or {ok: false, errors}');
}

function toErrors(raw: unknown): SignalError[] {
  if (!Array.isArray(raw)) throw new SignalToolError('errors is not a list');
  return raw.slice(0, 1000).map((item: unknown) => {
    const error = item as { message?: unknown; path?: unknown; line?: unknown } | null;
    const line = error?.line;
    if (error === null || typeof error !== 'object' || typeof error.message !== 'string'
      || (error.path !== null && typeof error.path !== 'string')
      || (line !== null && !(typeof line === 'number' && Number.isInteger(line) && line >= 1))) {
      throw new SignalToolError('an error entry is not {message, path, line}');
    }
    return { message: error.message, path: error.path as string | null, line: line as number | null };
  });
}
