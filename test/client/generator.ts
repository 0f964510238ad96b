import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = process.cwd();
const require = createRequire(import.meta.url);

/** The command line of `npm run generate:client`, with its output folder replaced by `output` (and its input by `input`). */
export function generatorArguments(output: string, input?: string): string[] {
  const script: unknown = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.['generate:client'];
  expect(script, 'package.json has the script generate:client').to.be.a('string');
  const [command, ...args] = (script as string).trim().split(/\s+/);
  expect(command, 'generate:client runs the openapi-ts CLI').to.equal('openapi-ts');
  const at = args.indexOf('-o');
  expect(at, 'generate:client names its output with -o').to.be.greaterThan(-1);
  args[at + 1] = output;
  if (input !== undefined) {
    const from = args.indexOf('-i');
    expect(from, 'generate:client names its input with -i').to.be.greaterThan(-1);
    args[from + 1] = input;
  }
  return args;
}

/** Runs the executable `bin` of package `name` with Node and `args`; its status and output. */
export function runPackageBin(name: string, bin: string, args: string[]): { status: number | null; output: string } {
  const packageDir = path.dirname(require.resolve(`${name}/package.json`));
  const result = spawnSync(process.execPath, [path.join(packageDir, bin), ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}`.trim() };
}
