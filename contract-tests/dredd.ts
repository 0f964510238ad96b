// Runs Dredd with contract-tests/dredd.yml and hooks.cjs against one server and reads its summary.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Dredd's counts; `failed` counts failures and errors. */
export interface DreddOutcome {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Dredd exited 0 and printed its summary. */
  readonly clean: boolean;
}

/**
 * Runs Dredd against `endpoint` (its output goes to stdout as it comes); `hookEnv` reaches the hooks. `workDir`
 * receives the copy of dredd.yml that names the endpoint.
 */
export async function runDredd(endpoint: string, hookEnv: Record<string, string>, workDir: string): Promise<DreddOutcome> {
  const config = path.join(workDir, 'dredd.yml');
  fs.writeFileSync(config, `${fs.readFileSync(path.join(root, 'contract-tests/dredd.yml'), 'utf8')}endpoint: '${endpoint}'\n`);
  const dredd = spawn(process.execPath, [path.join(root, 'node_modules/dredd/bin/dredd'), '--config', config], {
    cwd: root,
    env: { ...process.env, ...hookEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  dredd.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
  });
  const code = await new Promise<number>((resolve) => dredd.once('exit', (c) => resolve(c ?? 1)));
  // a Dredd that stopped mid-line (a failure printing a 1 MiB body, say) must not swallow the closing line
  if (output !== '' && !output.endsWith('\n')) process.stdout.write('\n');
  const summary = /complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped, (\d+) total/.exec(output);
  if (summary === null) return { passed: 0, failed: 1, skipped: 0, clean: false };
  const [, passing, failing, errors, skipped] = summary.map(Number) as [number, number, number, number, number];
  return { passed: passing, failed: failing + errors, skipped, clean: code === 0 };
}
