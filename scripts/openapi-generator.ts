// OpenAPI Generator (a Java program) for this repository: its CLI JAR comes from Maven Central through Maven's
// dependency plugin into .cache/openapi-generator/ (git-ignored), once per version; `openapitools.json` says which
// version runs and which generators run with which options. docs/clients.md, docs/dependencies.md.
//
//   npm run openapi-generator -- generate [KEY…]       every generator of openapitools.json (or the KEYs), one JVM
//   npm run openapi-generator -- jar                   the JAR's path (fetched when missing)
//   npm run openapi-generator -- run ARG…              java -jar <JAR> ARG… (validate, config-help, list, …)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(root, '.cache', 'openapi-generator');
/** The dependency plugin Maven runs to fetch the JAR, pinned so that the fetch does not change with Maven's defaults. */
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
const ARTIFACT = 'org.openapitools:openapi-generator-cli';

/** One generator of openapitools.json (the keys the npm wrapper `@openapitools/openapi-generator-cli` reads). */
export interface GeneratorConfig {
  generatorName: string;
  inputSpec: string;
  output: string;
  additionalProperties?: Record<string, string | boolean | number>;
  globalProperties?: Record<string, string | boolean>;
  typeMappings?: Record<string, string>;
  importMappings?: Record<string, string>;
  [option: string]: unknown;
}

/** What openapitools.json holds under `generator-cli`. */
export interface GeneratorSettings {
  version: string;
  generators: Record<string, GeneratorConfig>;
}

/** The settings of openapitools.json; throws when the version is not an exact 7.x version. */
export function generatorSettings(): GeneratorSettings {
  const file = path.join(root, 'openapitools.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'))['generator-cli'] as GeneratorSettings | undefined;
  if (settings === undefined || !/^7\.\d+\.\d+$/.test(settings.version ?? '')) {
    throw new Error(`${file}: generator-cli.version must be an exact 7.x version (e.g. 7.25.0)`);
  }
  return settings;
}

/** The path of the generator's CLI JAR at the version of openapitools.json, fetched through Maven when missing. */
export function generatorJar(version = generatorSettings().version): string {
  const jar = path.join(cacheDir, `openapi-generator-cli-${version}.jar`);
  if (fs.existsSync(jar)) return jar;
  fs.mkdirSync(cacheDir, { recursive: true });
  // Maven's own local repository (~/.m2, or what settings.xml says) keeps the download between clones.
  const run = spawnSync('mvn', ['-B', '-q', `${DEPENDENCY_PLUGIN}:copy`, `-Dartifact=${ARTIFACT}:${version}:jar`, `-DoutputDirectory=${cacheDir}`], {
    cwd: os.tmpdir(),
    encoding: 'utf8',
  });
  if (run.error !== undefined || run.status !== 0 || !fs.existsSync(jar)) {
    const why = run.error?.message ?? `${run.stdout}\n${run.stderr}`.trim();
    throw new Error(`Maven could not fetch ${ARTIFACT}:${version} (is mvn on PATH and Maven Central reachable?):\n${why}`);
  }
  return jar;
}

/** Runs `java -jar <JAR> …args` and returns its status and output (stdout and stderr together). */
export function runGenerator(args: string[], options: { cwd?: string } = {}): { status: number | null; output: string } {
  const run = spawnSync('java', ['-jar', generatorJar(), ...args], { cwd: options.cwd ?? root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error !== undefined) return { status: null, output: `java could not start: ${run.error.message}` };
  return { status: run.status, output: `${run.stdout}\n${run.stderr}`.trim() };
}

/** Where and from what to generate instead of what openapitools.json says. */
export interface GenerateOptions {
  /** The generators of openapitools.json to run (default: all). */
  keys?: string[];
  /** The contract to generate from (default: each generator's `inputSpec`). */
  inputSpec?: string;
  /** A folder that takes the place of `build/clients` in each generator's `output`. */
  outputRoot?: string;
}

/** A generator's output folder, absolute, with `build/clients` replaced by `outputRoot` when given. */
export function outputOf(config: GeneratorConfig, outputRoot?: string): string {
  const output = path.resolve(root, config.output);
  if (outputRoot === undefined) return output;
  const relative = path.relative(path.join(root, 'build', 'clients'), output);
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${config.output}: outputs must lie under build/clients to be moved`);
  return path.join(outputRoot, relative);
}

/**
 * Runs the generators of openapitools.json in one JVM (the CLI's `batch` command, one config file each, in the
 * CLI's own format: `outputDir` for the wrapper's `output`), once per entry of `runs` (another contract, another
 * output folder). Each output folder is emptied first. Throws with the generator's output when it fails.
 */
export function generateBatch(runs: GenerateOptions[]): { output: string; folders: Record<string, string>[] } {
  const { generators } = generatorSettings();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-generator-batch-'));
  try {
    const files: string[] = [];
    const folders = runs.map((options, n) => {
      const outputs: Record<string, string> = {};
      for (const key of options.keys ?? Object.keys(generators)) {
        const config = generators[key];
        if (config === undefined) throw new Error(`openapitools.json has no generator ${key} (it has ${Object.keys(generators).join(', ')})`);
        const { output: _output, inputSpec, ...rest } = config;
        outputs[key] = outputOf(config, options.outputRoot);
        fs.rmSync(outputs[key], { recursive: true, force: true });
        const file = path.join(scratch, `${n}-${key}.json`);
        fs.writeFileSync(file, JSON.stringify({ ...rest, inputSpec: path.resolve(root, options.inputSpec ?? inputSpec), outputDir: outputs[key] }, null, 2));
        files.push(file);
      }
      return outputs;
    });
    const run = runGenerator(['batch', '--fail-fast', '--threads', String(Math.min(files.length, os.availableParallelism())), ...files]);
    if (run.status !== 0) throw new Error(`openapi-generator batch failed (exit ${run.status}):\n${run.output}`);
    return { output: run.output, folders };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs the generators of openapitools.json (or those `options` names) once; see generateBatch. */
export function generateClients(options: GenerateOptions = {}): { output: string; folders: Record<string, string> } {
  const { output, folders } = generateBatch([options]);
  return { output, folders: folders[0]! };
}

function main(argv: string[]): number {
  const [command, ...args] = argv;
  if (command === 'jar') {
    console.log(generatorJar());
    return 0;
  }
  if (command === 'run') {
    const run = spawnSync('java', ['-jar', generatorJar(), ...args], { stdio: 'inherit' });
    return run.status ?? 1;
  }
  if (command === 'generate') {
    const { folders } = generateClients(args.length > 0 ? { keys: args } : {});
    for (const [key, folder] of Object.entries(folders)) console.log(`${key}: ${path.relative(root, folder)}`);
    return 0;
  }
  console.error('usage: npm run openapi-generator -- generate [KEY…] | jar | run ARG…');
  return 2;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
