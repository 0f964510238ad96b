import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm start', () => {
  it('runs node with flags this Node accepts on the built entry point (CI never runs npm start)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const [command, ...args] = pkg.scripts.start.trim().split(/\s+/);
    const entry = args.pop();
    expect(command).to.equal('node');
    expect(entry).to.equal('dist/src/main.js');
    expect(args).to.include('--max-semi-space-size=2');
    expect(args).to.include('--heap-growing-percent=100');
    const probe = spawnSync(process.execPath, [...args, '-e', "process.stdout.write(String(require('node:v8').getHeapSpaceStatistics().length))"], { encoding: 'utf8' });
    expect(probe.stderr).to.equal('');
    expect(probe.status).to.equal(0);
  });
});
