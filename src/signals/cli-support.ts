import fs from 'node:fs';
import readline from 'node:readline';
import { LIMITS } from './definition-rules.js';
import { goldSchemaFrom } from './tool-outcomes.js';
import type { GoldSchema } from './definition-rules.js';

/** Command-line options shared by the checker and the compiler. */
export interface CliOptions {
  serve: boolean;
  goldSchemaFile: string | null;
  positional: string[];
}

/** Parses `[--serve] [--gold-schema FILE] [ARG...]`; throws on an unknown option. */
export function parseCliOptions(argv: readonly string[]): CliOptions {
  const options: CliOptions = { serve: false, goldSchemaFile: null, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--serve') options.serve = true;
    else if (arg === '--gold-schema' && i + 1 < argv.length) options.goldSchemaFile = argv[++i] as string;
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.positional.push(arg);
  }
  return options;
}

/** Reads a Gold schema JSON file. */
export function readGoldSchemaFile(file: string | null): GoldSchema | null {
  if (file === null) return null;
  return goldSchemaFrom(JSON.parse(readTextFile(file, 16 * 1024 * 1024)));
}

/** Reads a UTF-8 file of at most `limit` bytes (checked before reading). */
export function readTextFile(file: string, limit: number = LIMITS.yamlBytes): string {
  const size = fs.statSync(file).size;
  if (size > limit) throw new Error(`${file} is larger than ${limit} bytes`);
  return fs.readFileSync(file, 'utf8');
}

/** Reads standard input up to `limit` bytes; throws beyond it. */
export async function readStdin(limit: number = LIMITS.yamlBytes): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error(`standard input is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Prints one JSON answer and sets the exit code (0 when `success`, 1 otherwise). */
export function printAnswer(answer: object, success: boolean): void {
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  process.exitCode = success ? 0 : 1;
}

/** Usage or I/O failure: message on stderr, exit code 2. */
export function printFailure(err: unknown): void {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}

/**
 * Worker mode (`--serve`): prints `{"ready":true}`, then answers each JSON line `{id, ...}` on standard input with
 * one line `{id, result}` or `{id, error}`, in order, until standard input closes.
 */
export async function serveLines(answer: (request: Record<string, unknown>) => object): Promise<void> {
  process.stdout.write('{"ready":true}\n');
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let id: unknown = null;
    try {
      const request = JSON.parse(line) as Record<string, unknown>;
      id = request['id'] ?? null;
      process.stdout.write(`${JSON.stringify({ id, result: answer(request) })}\n`);
    } catch (err) {
      process.stdout.write(`${JSON.stringify({ id, error: err instanceof Error ? err.message : String(err) })}\n`);
    }
  }
}
