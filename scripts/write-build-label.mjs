// Records the UTC build time next to package.json (design.md section 10: "npm install builds").
import fs from 'node:fs';
const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const time = new Date().toISOString().slice(0, 16).replace('T', ' ');
fs.writeFileSync('build-label.json', JSON.stringify({ label: `v${version} ${time}` }) + '\n');
