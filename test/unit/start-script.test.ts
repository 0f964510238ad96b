import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm start', () => {
  it('runs node on the built entry point, with the allocator setting and no V8 flags (CI never runs npm start)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const words = pkg.scripts.start.trim().split(/\s+/);
    // the C allocator's setting comes first, as a variable of the command (docs/deployment.md)
    expect(words.shift()).to.equal('MALLOC_MMAP_THRESHOLD_=131072');
    const [command, ...args] = words;
    const entry = args.pop();
    expect(command).to.equal('node');
    expect(entry).to.equal('dist/src/main.js');
    // V8 sizes its heap itself: the goals hold without the flags 0.3.0 set (docs/deployment.md)
    expect(args).to.deep.equal([]);
  });
});

describe('the server on an older Node.js', () => {
  it('stops with exit code 2 and one line naming the version it needs, before loading anything else', () => {
    // The preload makes this Node report an older version to the entry point; the server's own modules never load.
    const older = "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });";
    const started = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(older)}`, '--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PORT: '0', DATA_DIR: fs.mkdtempSync(path.join(root, '.tmp-node-version-')) },
    });
    fs.readdirSync(root).filter((name) => name.startsWith('.tmp-node-version-')).forEach((name) => fs.rmSync(path.join(root, name), { recursive: true }));
    expect(started.status).to.equal(2);
    expect(started.stdout).to.equal('');
    expect(started.stderr.trim().split('\n')).to.deep.equal([
      'analytics-desk-server needs Node.js 24 or newer, not 20.20.2; `source scripts/node.sh` installs and uses Node.js 24 for this shell',
    ]);
  });
});
