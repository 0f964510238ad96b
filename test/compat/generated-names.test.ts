import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { generateClients, generatorSettings, outputOf, runGenerator, type GeneratorConfig } from '../../scripts/openapi-generator.js';
import { tempDir } from '../helpers/server.js';

// Every type a generated client has is named by the contract: OpenAPI Generator names a schema written inline
// itself (`HealthLocal_db`, `ViewCellInput_anyOf_1`, `InlineObject3`, `ListViews200Response`, `…_inner`), and
// renames a member whose name is a reserved word of the language (`var_in`, `_in`) unless openapitools.json maps
// it. Such names are what integrators' code carries, so they must read well from the first release on
// (docs/versioning.md, "Names in generated clients").

const root = process.cwd();
const contract = YAML.parse(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { components: { schemas: Record<string, { type?: string; enum?: unknown[] }> } };

/** Files a generator writes into its model folder that are its own support code, not a schema. */
const SUPPORT_FILES = new Set(['index', 'AbstractOpenApiSchema', '__init__']);

/** `HealthLocalDatabase` → `health_local_database`, as the python and go generators name model files. */
const snakeCase = (name: string): string => name.replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase();

/** The schema names a generator makes a model of (objects, compositions, enums: not plain strings or numbers), as renamed by its `modelNameMappings`. */
function modelNames(config: GeneratorConfig): Set<string> {
  const mappings = (config.modelNameMappings ?? {}) as Record<string, string>;
  return new Set(Object.keys(contract.components.schemas).map((name) => mappings[name] ?? name));
}

/** Model names of one generator's output, from its model files. */
const MODEL_FILES: Record<string, (folder: string) => { names: string[]; normalize: (name: string) => string }> = {
  'typescript-fetch': (folder) => ({ names: list(path.join(folder, 'src', 'models'), '.ts'), normalize: (name) => name }),
  python: (folder) => ({ names: list(path.join(folder, 'analytics_desk_client', 'models'), '.py'), normalize: snakeCase }),
  java: (folder) => ({ names: list(path.join(folder, 'src', 'main', 'java', 'example', 'desk', 'client', 'model'), '.java'), normalize: (name) => name }),
  go: (folder) => ({ names: fs.readdirSync(folder).filter((file) => file.startsWith('model_') && file.endsWith('.go')).map((file) => file.slice(6, -3)), normalize: snakeCase }),
};

/** How each generator writes a name it escaped as a reserved word, found in its generated sources. */
const ESCAPES: Record<string, { files: RegExp; escaped: RegExp }> = {
  'typescript-fetch': { files: /\.ts$/, escaped: /^\s+(_[a-z]\w*)\??: /gm },
  python: { files: /\.py$/, escaped: /\b(var_\w+)\b/g },
  java: { files: /\.java$/, escaped: /\b(?:private|public|protected) (?:final )?[\w<>, ?]+ (_[a-z]\w*)\s*[;=(]/g },
  go: { files: /\.go$/, escaped: /\bfunc \(\w+ \*?\w+\) (\w+_)\(/g },
};

function list(folder: string, extension: string): string[] {
  expect(fs.existsSync(folder), `model folder ${folder}`).to.equal(true);
  return fs.readdirSync(folder).filter((file) => file.endsWith(extension)).map((file) => file.slice(0, -extension.length));
}

function sources(folder: string, pattern: RegExp): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => pattern.test(file) && !file.split(path.sep).includes('test')).map((file) => path.join(folder, file));
}

describe('names in the clients OpenAPI Generator makes from openapi.yaml', function () {
  // four generators in one JVM, and one more run for the log (the JAR is fetched through Maven the first time)
  this.timeout(600_000);
  const settings = generatorSettings();
  let scratch: { dir: string; remove: () => void };
  let folders: Record<string, string>;
  let log: string;

  before(() => {
    scratch = tempDir('generated-names-');
    folders = generateClients({ outputRoot: scratch.dir }).folders;
    // the batch run keeps each generator's log to itself: the log of one generator's run shows what the shared
    // parser did to the contract, inline schemas included
    const config = settings.generators['typescript-fetch']!;
    const run = runGenerator(['generate', '-g', config.generatorName, '-i', path.join(root, 'openapi.yaml'), '-o', path.join(scratch.dir, 'log-run'), '--dry-run']);
    expect(run.status, run.output).to.equal(0);
    log = run.output;
  });
  after(() => scratch?.remove());

  it('creates no model from an inline schema (no "Inline schema created" in its log)', () => {
    const created = [...log.matchAll(/Inline schema created as (\S+?)\.? /g)].map((match) => match[1]);
    expect(created, 'name these schemas in components/schemas').to.deep.equal([]);
  });

  for (const key of ['typescript-fetch', 'python', 'java', 'go']) {
    it(`${key}: every model is a schema of components/schemas, under the schema's name`, () => {
      const config = settings.generators[key];
      expect(config, `openapitools.json has the generator ${key}`).to.not.equal(undefined);
      const expected = new Set([...modelNames(config!)].map((name) => MODEL_FILES[key]!(folders[key]!).normalize(name)));
      const { names } = MODEL_FILES[key]!(folders[key] ?? outputOf(config!, scratch.dir));
      const invented = names.filter((name) => !expected.has(name) && !SUPPORT_FILES.has(name));
      expect(invented, `${key} made models the contract does not name`).to.deep.equal([]);
    });

    it(`${key}: renames no property, parameter or operation as a reserved word`, () => {
      const { files, escaped } = ESCAPES[key]!;
      const found = new Set<string>();
      for (const file of sources(folders[key]!, files)) {
        for (const match of fs.readFileSync(file, 'utf8').matchAll(escaped)) found.add(`${match[1]} (${path.relative(folders[key]!, file)})`);
      }
      expect([...found], `${key} escaped these names: rename them in the contract (compatibly) or map them in openapitools.json (nameMappings)`).to.deep.equal([]);
    });
  }
});
