// Records the UTC build time next to package.json; `npm install` builds, so every install has a current label.
import fs from 'node:fs';
const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const time = new Date().toISOString().slice(0, 16).replace('T', ' ');
fs.writeFileSync('build-label.json', JSON.stringify({ label: `v${version} ${time}` }) + '\n');
