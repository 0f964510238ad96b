// CI: fails when generated/ does not match what `npm run generate` makes from openapi.yaml.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const target = 'generated/openapi.d.ts';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-'));
const fresh = path.join(scratch, 'openapi.d.ts');
try {
  execFileSync(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', 'openapi.yaml', '-o', fresh], { stdio: ['ignore', 'ignore', 'inherit'] });
  const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (committed !== fs.readFileSync(fresh, 'utf8')) {
    console.error(`${target} is stale: run \`npm run generate\` and commit the result`);
    process.exit(1);
  }
  console.log(`${target} is current`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
