import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// How each language's client scenario (test/client/scenarios/<language>/) is built and run beside the client
// OpenAPI Generator wrote: the tools are the language's own (tsc, mypy, Maven and javac, go vet and go build), the
// dependencies pinned in the scenario folder's manifest or the generated client's, installed into git-ignored
// caches (.cache/, Maven's ~/.m2, Go's module cache) and reused between runs.

const root = process.cwd();
const require = createRequire(import.meta.url);

/** What a command printed and how it ended. */
export interface CommandResult {
  status: number | null;
  output: string;
}

/** Runs a command without blocking the event loop (the server under test runs in this process). */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', (error) => resolve({ status: null, output: `${command} could not start: ${error.message}` }));
    child.on('close', (status) => resolve({ status, output: output.trim() }));
  });
}

/** Runs the commands in turn; throws at the first that fails, with its command line and output. */
export async function runAll(steps: { command: string; args: string[]; cwd: string; env?: Record<string, string> }[]): Promise<void> {
  for (const step of steps) {
    const result = await runCommand(step.command, step.args, step);
    if (result.status !== 0) {
      throw new Error(`${[step.command, ...step.args].join(' ')} (in ${path.relative(root, step.cwd)}) exited ${result.status}:\n${result.output.slice(-6000)}`);
    }
  }
}

/** One language: the generator of openapitools.json it uses, how its scenario is compiled and started. */
export interface ScenarioLanguage {
  name: 'typescript' | 'python' | 'java' | 'go';
  /** The key of its generator in openapitools.json. */
  generator: string;
  /** The strict settings its compile step uses, for the test's title. */
  compiler: string;
  /** Compiles the client in `work/clients/<generator>` and the scenario in `work/scenarios/<name>`; throws on errors. */
  compile(work: string): Promise<void>;
  /**
   * Type-checks the generated client on its own where compiling the scenario does not (the python package, which
   * the scenario's check reads without reporting its errors); throws on errors. Absent: `compile` checks the client.
   */
  checkClient?(work: string): Promise<void>;
  /** What checkClient runs, for the test's title. */
  clientChecker?: string;
  /** The command line that runs the compiled scenario (in `work/scenarios/<name>`). */
  command(work: string): { command: string; args: string[]; env?: Record<string, string> };
}

const packageFile = (name: string, file: string): string => path.join(path.dirname(require.resolve(`${name}/package.json`)), file);
const tsc = packageFile('typescript', 'bin/tsc');

/** Where the virtual environment with the Python scenario's requirements lives: one per version of requirements.txt. */
function pythonEnvironment(): { requirements: string; venv: string; python: string } {
  const requirements = path.join(root, 'test', 'client', 'scenarios', 'python', 'requirements.txt');
  const digest = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 16);
  const venv = path.join(root, '.cache', `python-scenario-${digest}`);
  return { requirements, venv, python: path.join(venv, 'bin', 'python') };
}

/** Makes the virtual environment unless it was made before (pip's own cache keeps the downloads). */
async function installPythonEnvironment(): Promise<string> {
  const { requirements, venv, python } = pythonEnvironment();
  const marker = path.join(venv, 'installed');
  if (fs.existsSync(marker)) return python;
  fs.rmSync(venv, { recursive: true, force: true });
  await runAll([
    { command: 'python3', args: ['-m', 'venv', venv], cwd: root },
    { command: python, args: ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', requirements], cwd: root },
  ]);
  fs.writeFileSync(marker, `${path.relative(root, requirements)}\n`);
  return python;
}

export const languages: ScenarioLanguage[] = [
  {
    name: 'typescript',
    generator: 'typescript-fetch',
    compiler: 'tsc --strict, the scenario with noUncheckedIndexedAccess',
    async compile(work) {
      await runAll([
        // the generated package's own build (`npm run build` there: CommonJS into dist/), here strict
        { command: process.execPath, args: [tsc, '-p', 'tsconfig.json', '--strict', '--pretty', 'false'], cwd: path.join(work, 'clients', 'typescript-fetch') },
        { command: process.execPath, args: [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], cwd: path.join(work, 'scenarios', 'typescript') },
      ]);
    },
    command: () => ({ command: process.execPath, args: [packageFile('tsx', 'dist/cli.mjs'), 'scenario.ts'] }),
  },
  {
    name: 'python',
    generator: 'python',
    compiler: 'mypy, strict for the scenario (mypy.ini)',
    async compile(work) {
      const python = await installPythonEnvironment();
      const client = path.join(work, 'clients', 'python');
      await runAll([
        {
          command: python,
          args: ['-m', 'mypy', '--cache-dir', path.join(root, '.cache', 'mypy'), 'scenario.py'],
          cwd: path.join(work, 'scenarios', 'python'),
          env: { MYPYPATH: client },
        },
      ]);
    },
    clientChecker: "mypy at its default level (no configuration file: neither mypy.ini nor the generator's pyproject.toml)",
    async checkClient(work) {
      const python = await installPythonEnvironment();
      await runAll([
        {
          command: python,
          args: ['-m', 'mypy', '--config-file', '', '--cache-dir', path.join(root, '.cache', 'mypy'), '-p', 'analytics_desk_client'],
          cwd: path.join(work, 'clients', 'python'),
        },
      ]);
    },
    command: (work) => ({ command: pythonEnvironment().python, args: ['scenario.py'], env: { PYTHONPATH: path.join(work, 'clients', 'python') } }),
  },
  {
    name: 'java',
    generator: 'java',
    compiler: 'mvn compile (-Xlint:all), javac -Xlint:all -Werror',
    async compile(work) {
      const client = path.join(work, 'clients', 'java');
      // the generated pom.xml compiles the client (with -Xlint:all) and writes its dependencies' class path
      await runAll([{ command: 'mvn', args: ['-B', '-q', 'compile', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'], cwd: client }]);
      await runAll([{ command: 'javac', args: ['-Xlint:all', '-Werror', '-cp', javaClasspath(work), '-d', 'classes', 'Scenario.java', 'ColumnFilter.java', 'PipelineGraph.java'], cwd: path.join(work, 'scenarios', 'java') }]);
    },
    command: (work) => ({ command: 'java', args: ['-cp', `classes${path.delimiter}${javaClasspath(work)}`, 'Scenario'] }),
  },
  {
    name: 'go',
    generator: 'go',
    compiler: 'go vet (scenario and client), go build',
    async compile(work) {
      const scenario = path.join(work, 'scenarios', 'go');
      await runAll([
        { command: 'go', args: ['vet', '.', 'example.com/desk/deskclient'], cwd: scenario },
        { command: 'go', args: ['build', '-o', 'scenario', '.'], cwd: scenario },
      ]);
    },
    command: () => ({ command: './scenario', args: [] }),
  },
];

/** The generated Java client's classes and its dependencies (written by its compile step). */
function javaClasspath(work: string): string {
  const client = path.join(work, 'clients', 'java');
  return [path.join(client, 'target', 'classes'), fs.readFileSync(path.join(client, 'classpath.txt'), 'utf8').trim()].join(path.delimiter);
}
