import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is looked for when `CHROMIUM_PATH` is not set: Debian's package, then `chromium` on PATH. */
const DEFAULT_CHROMIUM = '/usr/bin/chromium';

// Playwright adds --headless itself and gives each launch a fresh temporary profile, removed on close (it refuses
// --user-data-dir in `args`). Test machines have no internet: Chromium's background fetches (component updates,
// sync, QUIC probes) only add delays and flakiness, so they are switched off here, not left to Playwright's
// defaults. --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * The Chromium executable to test with: `CHROMIUM_PATH` when set (it must be executable), else the first executable
 * of `defaults` (/usr/bin/chromium), else `chromium` on PATH. Throws an error saying how to get one when there is none.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env, defaults: readonly string[] = [DEFAULT_CHROMIUM]): string {
  const configured = env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') {
    if (isExecutable(configured)) return configured;
    throw new Error(`CHROMIUM_PATH is "${configured}", which is not an executable file`);
  }
  const onPath = (env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '').map((dir) => path.join(dir, 'chromium'));
  const found = [...defaults, ...onPath].find(isExecutable);
  if (found !== undefined) return found;
  throw new Error(
    `no Chromium found for the browser tests: set CHROMIUM_PATH to a Chromium or Chrome executable, or install ` +
      `Debian's package (apt-get install chromium, as .ci/run does); looked for ${[...defaults, 'chromium on PATH'].join(', ')}`,
  );
}

/** Launches headless Chromium (see findChromium); throws an error naming the executable when it cannot start. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  try {
    return await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  } catch (error) {
    throw new Error(`Chromium at ${executablePath} could not start: ${(error as Error).message}`);
  }
}
