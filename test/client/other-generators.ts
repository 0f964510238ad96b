import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { runAll, runCommand } from './scenario-languages.js';

// The generators integrators pick besides OpenAPI Generator, each at a pinned version (the scenario folder's go.mod or
// requirements.txt, or this repository's package.json), with its download cached under .cache/: how each generates its client
// from the contract into build/other-generators/<name>/, how the client and the scenario are built and type-checked
// with the language's own tools, and how the scenario is run. docs/clients.md shows the same commands.

const root = process.cwd();
const require = createRequire(import.meta.url);
const packageFile = (name: string, file: string): string => path.join(path.dirname(require.resolve(`${name}/package.json`)), file);

/** One generator: its scenario folder is test/client/scenarios/<name>/. */
export interface OtherGenerator {
  name: 'oapi-codegen' | 'openapi-fetch' | 'openapi-python-client';
  /** The generator and its pinned version, for the test's title. */
  generator: string;
  /** What `check` runs, for the test's title. */
  checker: string;
  /** Generates the client into `work` (the scenario folder copied there, with openapi.yaml); throws on errors. */
  generate(work: string): Promise<void>;
  /** Builds and type-checks the client and the scenario; throws on errors. */
  check(work: string): Promise<void>;
  /** Writes the example of docs/clients.md into `work`, where `check` checks it with the scenario. */
  layExample(work: string): void;
  /** The command line that runs the checked scenario (in `work`). */
  command(work: string): { command: string; args: string[]; env?: Record<string, string> };
}

/** The headings of docs/clients.md's section on each generator. */
export const DOC_SECTIONS: Record<OtherGenerator['name'], string> = {
  'oapi-codegen': '## oapi-codegen (Go)',
  'openapi-fetch': '## openapi-typescript and openapi-fetch (TypeScript)',
  'openapi-python-client': '## openapi-python-client (Python)',
};

/** The code blocks of a generator's section of docs/clients.md, each with the language and the text. */
export function docBlocks(name: OtherGenerator['name']): { language: string; text: string }[] {
  const page = fs.readFileSync(path.join(root, 'docs', 'clients.md'), 'utf8');
  const start = page.indexOf(`\n${DOC_SECTIONS[name]}\n`);
  if (start < 0) throw new Error(`docs/clients.md has no section ${DOC_SECTIONS[name]}`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ language: match[1]!, text: match[2]! }));
}

/** The block of a generator's section whose first line is `first` (`// main.go`, `# oapi-codegen.yaml`). */
export function docBlock(name: OtherGenerator['name'], first: string): string {
  const block = docBlocks(name).find((candidate) => candidate.text.split('\n')[0] === first);
  if (block === undefined) throw new Error(`docs/clients.md, ${DOC_SECTIONS[name]}: no block starting with ${first}`);
  return block.text;
}

/**
 * The work folder of a generator, with its scenario folder and the contract copied in, and the example of
 * docs/clients.md beside them (layExample), so that checking the scenario checks the recipe's code too.
 */
export function layWork(generator: OtherGenerator): string {
  const work = path.join(root, 'build', 'other-generators', generator.name);
  fs.mkdirSync(work, { recursive: true });
  fs.cpSync(path.join(root, 'test', 'client', 'scenarios', generator.name), work, { recursive: true });
  fs.copyFileSync(path.join(root, 'openapi.yaml'), path.join(work, 'openapi.yaml'));
  generator.layExample(work);
  return work;
}

/** A digest of the files a generated client depends on (in `work`), to generate it again only when one changes. */
function digestOf(work: string, files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\n`).update(fs.readFileSync(path.join(work, file)));
  return hash.digest('hex');
}

/** Runs `generate` unless the output folder holds a marker of the same inputs; writes the marker after it. */
async function generateOnce(work: string, output: string, inputs: string[], generate: () => Promise<void>): Promise<void> {
  const marker = path.join(work, output, '.generated-from');
  const digest = digestOf(work, inputs);
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === digest) return;
  fs.rmSync(path.join(work, output), { recursive: true, force: true });
  await generate();
  fs.writeFileSync(marker, digest);
}

/** The command line of oapi-codegen (in the work folder), as docs/clients.md shows it. */
export const OAPI_CODEGEN_COMMAND = ['go', 'tool', 'oapi-codegen', '-config', 'oapi-codegen.yaml', 'openapi.yaml'];

/** The arguments of openapi-typescript (in the work folder), as docs/clients.md shows them after `npx openapi-typescript`. */
export const OPENAPI_TYPESCRIPT_ARGS = ['openapi.yaml', '-o', 'desk-api.d.ts'];

/** The arguments of openapi-python-client (in the work folder), as docs/clients.md shows them after `openapi-python-client`. */
export const OPENAPI_PYTHON_CLIENT_ARGS = ['generate', '--path', 'openapi.yaml', '--config', 'openapi-python-client.yaml', '--meta', 'none', '--output-path', 'desk_client'];

/**
 * Where the virtual environment with the generator, the client's dependencies and mypy, as pinned in the scenario's
 * requirements.txt, lives: under .cache/, one per version of that file, made once (pip's own cache keeps the downloads).
 */
function pythonPaths(): { requirements: string; venv: string; bin: string; python: string } {
  const requirements = path.join(root, 'test', 'client', 'scenarios', 'openapi-python-client', 'requirements.txt');
  const digest = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 16);
  const venv = path.join(root, '.cache', `openapi-python-client-${digest}`);
  return { requirements, venv, bin: path.join(venv, 'bin'), python: path.join(venv, 'bin', 'python') };
}

/** Makes the virtual environment of pythonPaths unless it was made before. */
async function pythonEnvironment(): Promise<{ python: string; bin: string }> {
  const { requirements, venv, bin, python } = pythonPaths();
  const marker = path.join(venv, 'installed');
  if (!fs.existsSync(marker)) {
    fs.rmSync(venv, { recursive: true, force: true });
    await runAll([
      { command: 'python3', args: ['-m', 'venv', venv], cwd: root },
      { command: python, args: ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', requirements], cwd: root },
    ]);
    fs.writeFileSync(marker, `${path.relative(root, requirements)}\n`);
  }
  return { python, bin };
}

/**
 * Runs openapi-python-client with the scenario's configuration but without its `content_type_overrides` (into a
 * folder of `work` that is removed after); what it printed.
 */
export async function pythonClientWithoutOverrides(work: string): Promise<string> {
  const { bin } = await pythonEnvironment();
  const config = fs.readFileSync(path.join(work, 'openapi-python-client.yaml'), 'utf8');
  const without = config.slice(0, config.indexOf('content_type_overrides:'));
  if (without === config || without.trim() === '') throw new Error('openapi-python-client.yaml has no content_type_overrides after its other options');
  fs.writeFileSync(path.join(work, 'without-overrides.yaml'), without);
  const output = path.join(work, 'without-overrides');
  try {
    const args = OPENAPI_PYTHON_CLIENT_ARGS.map((arg) => (arg === 'openapi-python-client.yaml' ? 'without-overrides.yaml' : arg === 'desk_client' ? 'without-overrides' : arg));
    const result = await runCommand(path.join(bin, 'openapi-python-client'), args, { cwd: work });
    if (result.status !== 0) throw new Error(`openapi-python-client ${args.join(' ')} exited ${result.status}:\n${result.output}`);
    return result.output;
  } finally {
    fs.rmSync(output, { recursive: true, force: true });
  }
}

/** Go with its module cache under .cache/ (writable, so that it can be removed), the build cache Go's own. */
const goEnv = (): Record<string, string> => ({
  GOMODCACHE: path.join(root, '.cache', 'go-mod'),
  GOFLAGS: `${process.env['GOFLAGS'] ?? ''} -modcacherw`.trim(),
});

export const otherGenerators: OtherGenerator[] = [
  {
    name: 'oapi-codegen',
    generator: 'oapi-codegen v2 (go.mod tool), models and client',
    checker: 'go vet ./..., go build ./...',
    async generate(work) {
      // the generator is a tool of the scenario's go.mod: `go tool` builds the pinned version (go.sum checks it)
      await generateOnce(work, 'deskapi', ['openapi.yaml', 'oapi-codegen.yaml', 'go.mod', 'go.sum'], async () => {
        fs.mkdirSync(path.join(work, 'deskapi'), { recursive: true });
        await runAll([{ command: OAPI_CODEGEN_COMMAND[0]!, args: OAPI_CODEGEN_COMMAND.slice(1), cwd: work, env: goEnv() }]);
      });
    },
    async check(work) {
      await runAll([
        { command: 'go', args: ['vet', './...'], cwd: work, env: goEnv() },
        { command: 'go', args: ['build', './...'], cwd: work, env: goEnv() },
        { command: 'go', args: ['build', '-o', 'scenario', '.'], cwd: work, env: goEnv() },
      ]);
    },
    layExample(work) {
      // the recipe's module is example.com/desk/example; here its package is a folder of the scenario's module
      const example = docBlock('oapi-codegen', '// main.go').replace('"example.com/desk/example/deskapi"', '"example.com/desk/scenario/deskapi"');
      fs.mkdirSync(path.join(work, 'example'), { recursive: true });
      fs.writeFileSync(path.join(work, 'example', 'main.go'), example);
    },
    command: () => ({ command: './scenario', args: [] }),
  },
  {
    name: 'openapi-fetch',
    generator: "openapi-typescript and openapi-fetch (this repository's devDependencies)",
    checker: 'tsc --strict, with noUncheckedIndexedAccess',
    async generate(work) {
      await runAll([{ command: process.execPath, args: [packageFile('openapi-typescript', 'bin/cli.js'), ...OPENAPI_TYPESCRIPT_ARGS], cwd: work }]);
    },
    async check(work) {
      await runAll([{ command: process.execPath, args: [packageFile('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--strict', '--pretty', 'false'], cwd: work }]);
    },
    layExample(work) {
      fs.writeFileSync(path.join(work, 'example.ts'), docBlock('openapi-fetch', '// example.ts'));
    },
    command: () => ({ command: process.execPath, args: [packageFile('tsx', 'dist/cli.mjs'), 'scenario.ts'] }),
  },
  {
    name: 'openapi-python-client',
    generator: 'openapi-python-client (requirements.txt), content_type_overrides for the binary answers',
    checker: 'mypy at its default level (no configuration file)',
    async generate(work) {
      const { bin } = await pythonEnvironment();
      await generateOnce(work, 'desk_client', ['openapi.yaml', 'openapi-python-client.yaml', 'requirements.txt'], async () => {
        // the generator formats its output with ruff (its dependency) when ruff is on PATH
        await runAll([{ command: path.join(bin, 'openapi-python-client'), args: OPENAPI_PYTHON_CLIENT_ARGS, cwd: work, env: { PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}` } }]);
      });
    },
    async check(work) {
      const { python } = await pythonEnvironment();
      await runAll([{ command: python, args: ['-m', 'mypy', '--config-file', '', '--cache-dir', path.join(root, '.cache', 'mypy'), 'scenario.py', 'example.py', 'desk_client'], cwd: work }]);
    },
    layExample(work) {
      fs.writeFileSync(path.join(work, 'example.py'), docBlock('openapi-python-client', '# example.py'));
    },
    command: (work) => ({ command: pythonPaths().python, args: ['scenario.py'], env: { PYTHONPATH: work } }),
  },
];
