// `npm run test:fuzz [-- <st run options>]`: Schemathesis generates valid and invalid requests for every operation of
// openapi.yaml and checks every answer (docs/testing.md). It runs twice against the local world of the contract
// tests (contract-tests/local-world.ts): once on a server without sign-in, once with sign-in and a token of every
// role. Schemathesis comes from contract-tests/fuzz/requirements.txt (exact pins with hashes), installed as wheels
// only (nothing is compiled; a missing wheel fails the install) into a virtual environment under .cache/ that is
// reused while the requirements and the Python interpreter are the same.
// The closing line `fuzz: N passed, N failed` counts the runs; the exit code is 1 when a run found anything.
//  - Options after `--` are passed to `st run` and override the defaults (`--max-examples 1000 --seed 7` for a long
//    run by hand; a --seed turns the deterministic generation of the default run off).
//  - `--url <base URL>` checks a deployment instead, once: with FUZZ_TOKEN set, the contract as written and that
//    bearer token; without, the contract as a server without sign-in applies it.
//  - FUZZ_PYTHON names the interpreter that makes the environment (default python3).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startLocalWorld, type LocalWorld } from '../contract-tests/local-world.js';

const root = path.resolve(import.meta.dirname, '..');
const fuzzDir = path.join(root, 'contract-tests', 'fuzz');
const requirements = path.join(fuzzDir, 'requirements.txt');
const venv = path.join(root, '.cache', 'fuzz-venv');
const reportDir = path.join(root, 'build', 'fuzz');

/**
 * The seed and deterministic generation of the CI run (the numbers of test cases are in schemathesis.toml); options
 * given on the command line come after them and win.
 */
const defaultOptions = ['--seed', '1', '--generation-deterministic'];

/** Creates the virtual environment, or reuses it when it was made from the same requirements and interpreter. */
function ensureSchemathesis(): string {
  const python = process.env.FUZZ_PYTHON || 'python3';
  const version = spawnSync(python, ['-c', 'import sys; print(sys.version)'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${python} cannot run: ${version.stderr || version.error?.message}`);
  const stamp = createHash('sha256').update(fs.readFileSync(requirements)).update(version.stdout).digest('hex');
  const stampFile = path.join(venv, 'requirements.sha256');
  const st = path.join(venv, 'bin', 'st');
  if (fs.existsSync(st) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return st;
  console.log(`fuzz: installing Schemathesis into ${path.relative(root, venv)}`);
  fs.rmSync(venv, { recursive: true, force: true });
  run(python, ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--require-hashes', '--no-deps', '--only-binary=:all:', '-r', requirements]);
  fs.writeFileSync(stampFile, stamp);
  return st;
}

function run(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}

/** What one Schemathesis run reported. */
interface RunOutcome {
  readonly name: string;
  readonly exitCode: number;
  readonly seconds: number;
  /** Operations tested, test cases generated, and `covered / selected` OpenAPI links, from its summary. */
  readonly operations: string;
  readonly cases: string;
  readonly links: string;
}

/** Where and how one run calls the server: its contract, base URL and bearer token (null: no sign-in). */
interface Target {
  readonly name: string;
  readonly contract: string;
  readonly url: string;
  readonly token: string | null;
  readonly workDir: string;
}

/** contract-tests/fuzz/excluded-operations.json: operationId → why Schemathesis does not run it. */
function excludedOperations(): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(fuzzDir, 'excluded-operations.json'), 'utf8')) as Record<string, string>;
}

/** `st run` against the target; its report goes to build/fuzz/ (console, JUnit, events). */
async function runSchemathesis(st: string, target: Target, extra: readonly string[]): Promise<RunOutcome> {
  const args = [
    '--config-file', configFor(target),
    'run', target.contract,
    '--url', target.url,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing,stateful',
    '--report', 'junit,ndjson',
    '--report-junit-path', path.join(reportDir, `${target.name}.junit.xml`),
    '--report-ndjson-path', path.join(reportDir, `${target.name}.ndjson`),
    ...withoutDeterminismWhenSeeded(defaultOptions, extra),
    // operations Schemathesis cannot read to an end (event streams), each with its reason
    ...Object.keys(excludedOperations()).flatMap((operationId) => ['--exclude-operation-id', operationId]),
    ...extra,
  ];
  const started = Date.now();
  console.log(`fuzz: ${target.name}: st ${args.join(' ')}${target.token === null ? '' : ' (with a bearer token)'}`);
  const env = { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1', FUZZ_BEARER_TOKEN: target.token ?? '' };
  const child = spawn(st, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env });
  // Schemathesis' console report goes to build/fuzz/<run>.log and is printed only when the run fails or
  // FUZZ_VERBOSE=1 asks for it: on success its summary is the line of figures below, and its closing line
  // (`== N warnings in Ns ==`) reads like a test runner's summary of zero tests to tools that scan CI logs.
  const logFile = path.join(reportDir, `${target.name}.log`);
  const verbose = process.env.FUZZ_VERBOSE === '1';
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    if (verbose) process.stdout.write(chunk);
    output += chunk;
  });
  const exitCode = await new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  fs.writeFileSync(logFile, output);
  if (exitCode !== 0 && !verbose) process.stdout.write(output);
  console.log(`fuzz: ${target.name}: Schemathesis' report in ${path.relative(root, logFile)}`);
  const figure = (pattern: RegExp): string => pattern.exec(output)?.[1] ?? '?';
  printLinksUsed(target.name, path.join(reportDir, `${target.name}.ndjson`));
  return {
    name: target.name,
    exitCode,
    seconds: (Date.now() - started) / 1000,
    operations: figure(/^\s*Tested: (\d+)/m),
    cases: figure(/^\s*(\d+) generated/m),
    links: figure(/API Links:\s+(\d+ covered \/ \d+ selected)/),
  };
}

/**
 * The links the stateful phase followed (`source -> [status] link -> target`, how often), from the run's event
 * stream: which kinds of created things it walked to reading, changing and deleting them.
 */
function printLinksUsed(name: string, events: string): void {
  if (!fs.existsSync(events)) return;
  const used = new Map<string, number>();
  for (const line of fs.readFileSync(events, 'utf8').split('\n')) {
    if (!line.startsWith('{"ScenarioFinished"') || !line.includes('"transition"')) continue;
    const scenario = (JSON.parse(line) as { ScenarioFinished: { phase: string; recorder: { cases: Record<string, { transition?: { id: string }; is_transition_applied?: boolean }> } } }).ScenarioFinished;
    if (scenario.phase !== 'stateful') continue;
    for (const step of Object.values(scenario.recorder.cases)) {
      if (step.transition !== undefined && step.is_transition_applied === true) used.set(step.transition.id, (used.get(step.transition.id) ?? 0) + 1);
    }
  }
  console.log(`fuzz: ${name}: links used in the stateful phase (${used.size}):`);
  for (const [id, count] of [...used].sort(([a], [b]) => a.localeCompare(b))) console.log(`  ${count} × ${id}`);
}

/**
 * contract-tests/fuzz/schemathesis.toml, with the bearer token sent on every request when the target has one. The
 * token reaches Schemathesis through its environment (FUZZ_BEARER_TOKEN), never on a command line.
 */
function configFor(target: Target): string {
  const base = fs.readFileSync(path.join(fuzzDir, 'schemathesis.toml'), 'utf8');
  const headers = target.token === null ? '' : 'headers = { Authorization = "Bearer ${FUZZ_BEARER_TOKEN}" }\n';
  const file = path.join(target.workDir, 'schemathesis.toml');
  fs.writeFileSync(file, headers + base);
  return file;
}

/**
 * openapi.yaml as a server without sign-in applies it: no operation asks for a token (the `bearerAuth` scheme says
 * so: without sign-in an Authorization header is ignored). Everything else is the contract as written.
 */
function withoutSecurity(workDir: string): string {
  const document = YAML.parse(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { security?: unknown; paths: Record<string, Record<string, { security?: unknown }>> };
  document.security = [];
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) if (typeof operation === 'object' && operation !== null) delete operation.security;
  }
  const file = path.join(workDir, 'openapi.without-sign-in.yaml');
  fs.writeFileSync(file, YAML.stringify(document));
  return file;
}

/** A --seed on the command line asks for that seed's random run: the default deterministic mode would ignore it. */
function withoutDeterminismWhenSeeded(options: readonly string[], extra: readonly string[]): string[] {
  const seeded = extra.some((a) => a === '--seed' || a.startsWith('--seed='));
  return options.filter((o) => !(seeded && o === '--generation-deterministic'));
}

/** The last 40 lines of the server's log that are not audit lines (every refused request writes one). */
function serverErrors(world: LocalWorld): string {
  return world.logTail(100_000).split('\n').filter((line) => !line.includes('"audit":true')).slice(-40).join('\n');
}

/** FUZZ_RUNS=without-sign-in or with-sign-in runs one of the two (default both). */
function runs(): boolean[] {
  const only = process.env.FUZZ_RUNS;
  if (only === 'without-sign-in') return [false];
  if (only === 'with-sign-in') return [true];
  return [false, true];
}

async function main(): Promise<number> {
  const extra = [...process.argv.slice(2)];
  const urlAt = extra.findIndex((a) => a === '--url' || a.startsWith('--url='));
  const endpoint = urlAt < 0 ? undefined : extra[urlAt]!.startsWith('--url=') ? extra.splice(urlAt, 1)[0]!.slice(6) : extra.splice(urlAt, 2)[1];
  const st = ensureSchemathesis();
  fs.mkdirSync(reportDir, { recursive: true });
  const outcomes: RunOutcome[] = [];
  const inWorkDir = async (run: (workDir: string) => Promise<RunOutcome>): Promise<void> => {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-fuzz-'));
    try {
      outcomes.push(await run(workDir));
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  };
  if (endpoint !== undefined) {
    // a deployment: with a token, the contract as written; without, as a server without sign-in applies it
    const token = process.env.FUZZ_TOKEN || null;
    await inWorkDir((workDir) => {
      const contract = token === null ? withoutSecurity(workDir) : path.join(root, 'openapi.yaml');
      return runSchemathesis(st, { name: 'endpoint', contract, url: endpoint, token, workDir }, extra);
    });
  }
  for (const signIn of endpoint === undefined ? runs() : []) {
    await inWorkDir(async (workDir) => {
      const world = await startLocalWorld(workDir, { signIn });
      try {
        const name = signIn ? 'with-sign-in' : 'without-sign-in';
        const contract = signIn ? path.join(root, 'openapi.yaml') : withoutSecurity(workDir);
        const outcome = await runSchemathesis(st, { name, contract, url: world.url, token: world.everyRoleToken, workDir }, extra);
        if (outcome.exitCode !== 0) console.log(`server log, last lines other than audit lines:\n${serverErrors(world)}`);
        return outcome;
      } finally {
        await world.close();
      }
    });
  }
  const passed = outcomes.filter((o) => o.exitCode === 0).length;
  for (const o of outcomes) {
    console.log(`fuzz: ${o.name}: ${o.exitCode === 0 ? 'passed' : 'failed'}: ${o.operations} operations tested, ${o.cases} test cases generated, links ${o.links}, ${o.seconds.toFixed(0)} s`);
  }
  console.log(`fuzz: ${passed} passed, ${outcomes.length - passed} failed`);
  return passed === outcomes.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
