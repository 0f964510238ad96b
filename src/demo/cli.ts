import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEMO_DEFAULTS, generateDemo, type DemoOptions } from './generate.js';
import { createProgressBar } from './progress.js';

/** Usage text of `npm run demo-data`. */
export const USAGE = 'usage: demo-data --out DIR [--tenants N (>= 3, default 4)] [--rows N (default 500)] [--search-items N (default 0)]';

/** Parsed command line, or an error message / a help request. */
export type CliArguments =
  | { kind: 'run'; options: Omit<DemoOptions, 'progress'> }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

const INTEGER_FLAGS = {
  '--tenants': { key: 'tenants', minimum: DEMO_DEFAULTS.minTenants },
  '--rows': { key: 'rows', minimum: 1 },
  '--search-items': { key: 'searchItems', minimum: 0 },
} as const;

/** Parses `--out DIR --tenants N --rows N --search-items N` (also `--flag=value`). */
export function parseCliArguments(argv: readonly string[]): CliArguments {
  const options: { out?: string; tenants?: number; rows?: number; searchItems?: number } = {};
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '--help' || argument === '-h') return { kind: 'help' };
    const [flag = '', inline] = argument.startsWith('--') && argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
    if (flag !== '--out' && !(flag in INTEGER_FLAGS)) return { kind: 'error', message: `unknown argument "${argument}"` };
    const value = inline ?? argv[++index];
    if (value === undefined || value === '') return { kind: 'error', message: `${flag} needs a value` };
    if (flag === '--out') {
      options.out = value;
      continue;
    }
    const { key, minimum } = INTEGER_FLAGS[flag as keyof typeof INTEGER_FLAGS];
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < minimum) {
      const expected = minimum === 0 ? 'a non-negative integer' : minimum === 1 ? 'a positive integer' : `an integer of at least ${minimum}`;
      return { kind: 'error', message: `${flag} must be ${expected} (got "${value}")` };
    }
    options[key] = number;
  }
  if (options.out === undefined) return { kind: 'error', message: '--out DIR is required' };
  return { kind: 'run', options: { ...options, out: options.out } };
}

/** Runs the CLI; returns the exit code (0 done, 1 failure, 2 bad arguments). */
export function runCli(argv: readonly string[], stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): number {
  const parsed = parseCliArguments(argv);
  if (parsed.kind === 'help') {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    stderr.write(`demo-data: ${parsed.message} (see --help)\n`);
    return 2;
  }
  const bar = stderr.isTTY ? createProgressBar(stderr) : undefined;
  const started = performance.now();
  try {
    const summary = generateDemo({ ...parsed.options, progress: bar ? (done, total, label) => bar.update(done, total, label) : undefined });
    bar?.finish();
    const bytes = summary.tenants.reduce((total, tenant) => total + fs.statSync(tenant.file).size, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    stdout.write(`demo-data: ${summary.tenants.length} tenants (${(bytes / 1048576).toFixed(1)} MB of KLS files) and ${summary.afsFiles.length} AFS files written to ${path.resolve(parsed.options.out)} in ${seconds} s\n`);
    return 0;
  } catch (error) {
    bar?.finish();
    stderr.write(`demo-data: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** True when this module is the program's entry point (works under tsx and compiled to dist/). */
function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(fs.realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMainModule()) process.exitCode = runCli(process.argv.slice(2));
