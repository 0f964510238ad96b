// `npm run test:compat`: compares openapi.yaml with the latest released contract (contract/releases/) by the rules
// of docs/versioning.md and exits 1 when a change comes without the version it needs or without its CHANGELOG.md
// entry; each failure names the operation, the place, the kind and the rule. `--list` also prints every change.
import { checkCompatibility } from '../contract/compat/releases.js';
import { describe, generatorDefaultsNote } from '../contract/compat/gate.js';

const report = checkCompatibility(process.cwd());
const list = process.argv.includes('--list');
for (const pair of report.compared) {
  const counts = new Map<string, number>();
  for (const change of pair.changes) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
  const summary = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ') || 'no changes';
  console.log(`compat: release ${pair.from} → ${pair.to}: ${summary}`);
  if (!list) continue;
  for (const change of pair.changes) {
    const note = generatorDefaultsNote(change);
    console.log(`  ${describe(change)}${note === '' ? '' : `\n    ${note}`}`);
  }
}
for (const violation of report.violations) console.error(`✗ ${violation.message}`);
console.log(`compat: ${report.violations.length === 0 ? 'ok' : `${report.violations.length} violation(s); the rules: docs/versioning.md`}`);
process.exit(report.violations.length === 0 ? 0 : 1);
