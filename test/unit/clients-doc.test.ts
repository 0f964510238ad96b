import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { docBlock, docBlocks, OAPI_CODEGEN_COMMAND, OPENAPI_PYTHON_CLIENT_ARGS, OPENAPI_TYPESCRIPT_ARGS } from '../client/other-generators.js';

// docs/clients.md names every option of openapitools.json in one table, with whether its recipe passes it; the
// recipes' command lines must pass exactly the options the table says, with the values of openapitools.json.

const MAP_OPTIONS = ['nameMappings', 'typeMappings', 'modelNameMappings'];
/** The CLI flags of `openapi-generator-cli generate` for the options of openapitools.json outside additionalProperties. */
const FLAGS: Record<string, string> = {
  '--name-mappings': 'nameMappings',
  '--type-mappings': 'typeMappings',
  '--model-name-mappings': 'modelNameMappings',
  '--library': 'library',
  '--git-host': 'gitHost',
  '--git-user-id': 'gitUserId',
  '--git-repo-id': 'gitRepoId',
};

type Options = Map<string, string>;

/** openapitools.json's options per generator: `name` (additionalProperties included) or `mapOption.key`, to values. */
function configured(): Map<string, Options> {
  const generators = JSON.parse(fs.readFileSync('openapitools.json', 'utf8'))['generator-cli'].generators as Record<string, Record<string, unknown>>;
  return new Map(Object.entries(generators).map(([name, config]) => {
    const options: Options = new Map();
    for (const [option, value] of Object.entries(config)) {
      if (['generatorName', 'inputSpec', 'output'].includes(option)) continue;
      if (option === 'additionalProperties') for (const [key, v] of Object.entries(value as object)) options.set(key, String(v));
      else if (MAP_OPTIONS.includes(option)) for (const [key, v] of Object.entries(value as object)) options.set(`${option}.${key}`, String(v));
      else options.set(option, String(value));
    }
    return [config.generatorName as string, options];
  }));
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The table of docs/clients.md: per generator, each option with its value and whether the recipe passes it. */
function documented(page: string): Map<string, Map<string, { value: string; inRecipe: boolean }>> {
  const table = page.split('### The options of `openapitools.json` and of the recipes')[1]!.split('\n### ')[0]!;
  const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| generator') && !line.startsWith('|---'));
  const result = new Map<string, Map<string, { value: string; inRecipe: boolean }>>();
  for (const row of rows) {
    const [generator, option, value, inRecipe] = row.split(' | ').map((cell) => cell.replace(/^\| /, '').trim());
    const names = ticked(option!);
    const keys = MAP_OPTIONS.includes(names[0]!) ? names.slice(1).map((key) => `${names[0]}.${key}`) : names;
    const values = ticked(value!);
    expect(values, `docs/clients.md: ${row}`).to.have.length(keys.length);
    const options = result.get(generator!) ?? new Map();
    keys.forEach((key, i) => options.set(key, { value: values[i]!, inRecipe: inRecipe === 'yes' }));
    result.set(generator!, options);
  }
  return result;
}

/** The options the recipe's `generate -g <generator>` command passes. */
function recipeOptions(page: string, generator: string): Options {
  const command = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) => block[1]!.replace(/\\\n/g, ' ')).flatMap((block) => block.split('\n')).find((line) => line.includes(`generate -g ${generator} `));
  expect(command, `docs/clients.md has a recipe running generate -g ${generator}`).to.be.a('string');
  const words = command!.trim().split(/\s+/).flatMap((word) => (/^--[a-z-]+=/.test(word) ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word]));
  const options: Options = new Map();
  words.forEach((word, i) => {
    const value = words[i + 1] ?? '';
    if (word === '--additional-properties') for (const pair of value.split(',')) options.set(pair.split('=')[0]!, pair.split('=').slice(1).join('='));
    else if (MAP_OPTIONS.includes(FLAGS[word] ?? '')) for (const pair of value.split(',')) options.set(`${FLAGS[word]}.${pair.split('=')[0]}`, pair.split('=')[1]!);
    else if (FLAGS[word] !== undefined) options.set(FLAGS[word], value);
  });
  return options;
}

describe('docs/clients.md and openapitools.json name the same generator options', () => {
  const page = fs.readFileSync('docs/clients.md', 'utf8');
  const config = configured();
  const table = documented(page);

  it('lists every option of openapitools.json with its value, and no other', () => {
    expect([...table.keys()].sort()).to.deep.equal([...config.keys()].sort());
    for (const [generator, options] of config) {
      const listed = new Map([...table.get(generator)!].map(([key, { value }]) => [key, value]));
      expect(Object.fromEntries(listed), generator).to.deep.equal(Object.fromEntries(options));
    }
  });

  for (const generator of ['typescript-fetch', 'python', 'java', 'go']) {
    it(`the ${generator} recipe passes the options the table marks, with those values, and none of the others`, () => {
      const passed = recipeOptions(page, generator);
      const expected = [...table.get(generator)!].filter(([, option]) => option.inRecipe).map(([key, { value }]) => [key, value]);
      expect(Object.fromEntries(passed)).to.deep.equal(Object.fromEntries(expected));
    });
  }
});

describe('docs/clients.md shows the commands, versions and configurations the other generators run with', () => {
  const scenarios = path.join('test', 'client', 'scenarios');
  /** The lines of the section's `sh` blocks, continuation lines joined. */
  const commands = (name: Parameters<typeof docBlocks>[0]): string[] =>
    docBlocks(name).filter((block) => block.language === 'sh').flatMap((block) => block.text.replace(/\\\n\s*/g, '').split('\n'));
  /** A configuration file without its comment lines. */
  const withoutComments = (text: string): string => text.split('\n').filter((line) => !line.startsWith('#')).join('\n').trim();

  it('oapi-codegen: the version of go.mod, the command of the test, the configuration of the scenario', () => {
    const goMod = fs.readFileSync(path.join(scenarios, 'oapi-codegen', 'go.mod'), 'utf8');
    const version = /^\s*github\.com\/oapi-codegen\/oapi-codegen\/v2 (v\S+)/m.exec(goMod)?.[1];
    expect(version, 'go.mod requires oapi-codegen').to.be.a('string');
    expect(goMod).to.match(/^tool github\.com\/oapi-codegen\/oapi-codegen\/v2\/cmd\/oapi-codegen$/m);
    const lines = commands('oapi-codegen');
    expect(lines).to.include(`go get -tool github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@${version}`);
    expect(lines.some((line) => line.split(' && ').includes(OAPI_CODEGEN_COMMAND.join(' '))), `a line running ${OAPI_CODEGEN_COMMAND.join(' ')}`).to.equal(true);
    expect(withoutComments(docBlock('oapi-codegen', '# oapi-codegen.yaml'))).to.equal(withoutComments(fs.readFileSync(path.join(scenarios, 'oapi-codegen', 'oapi-codegen.yaml'), 'utf8')));
  });

  it('openapi-typescript and openapi-fetch: the versions this repository installs, the command of the test', () => {
    const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    const fetchVersion = manifest.devDependencies['openapi-fetch'];
    expect(fetchVersion, 'openapi-fetch is a devDependency at an exact version').to.match(/^\d+\.\d+\.\d+$/);
    const typescriptVersion = (JSON.parse(fs.readFileSync('node_modules/openapi-typescript/package.json', 'utf8')) as { version: string }).version;
    const lines = commands('openapi-fetch');
    const installs = lines.filter((line) => line.includes('npm install')).join(' ').split(/\s+|&&/);
    expect(installs).to.include(`openapi-fetch@${fetchVersion}`);
    expect(installs).to.include(`openapi-typescript@${typescriptVersion}`);
    expect(lines).to.include(`npx openapi-typescript ${OPENAPI_TYPESCRIPT_ARGS.join(' ')}`);
  });

  it('openapi-python-client: the versions of requirements.txt, the command of the test, the configuration of the scenario', () => {
    const pinned = new Map(fs.readFileSync(path.join(scenarios, 'openapi-python-client', 'requirements.txt'), 'utf8').trim().split('\n').map((line) => line.split('==') as [string, string]));
    const lines = commands('openapi-python-client');
    const installs = lines.filter((line) => line.startsWith('pip install')).join(' ').split(/\s+/);
    for (const name of ['openapi-python-client', 'ruff']) expect(installs, name).to.include(`${name}==${pinned.get(name)}`);
    expect(lines).to.include(`openapi-python-client ${OPENAPI_PYTHON_CLIENT_ARGS.join(' ')}`);
    expect(withoutComments(docBlock('openapi-python-client', '# openapi-python-client.yaml'))).to.equal(withoutComments(fs.readFileSync(path.join(scenarios, 'openapi-python-client', 'openapi-python-client.yaml'), 'utf8')));
  });
});
