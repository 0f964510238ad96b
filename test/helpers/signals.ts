import fs from 'node:fs';
import path from 'node:path';

/** The example signal of docs/signal-language.md (without its description), as the demo writes it. */
export const EXAMPLE_SIGNAL = `probe_id: probe_unbilled_cases
type: signal
name:
  en: Discharged cases not yet billed
  de: Entlassene, noch nicht abgerechnete Fälle
  fr: Cas sortis non encore facturés
contract:
  entity_type: Case
  source: gold_cases
  entity_id: case_id
  time_bucket: discharged_on
  money_at_risk: expected_amount
  where:
    - {column: billed, op: "=", value: 0}
    - {column: status, op: in, value: [closed, discharged]}
  severity:
    - {level: high, when: {column: expected_amount, op: ">=", value: 10000}}
    - {level: medium, when: {column: expected_amount, op: ">=", value: 1000}}
    - {level: low}
  evidence: [case_id, discharged_on, expected_amount]
`;

/** The example with another probe_id. */
export function signalYaml(probeId: string, source = EXAMPLE_SIGNAL): string {
  return source.replace(/^probe_id: .*$/m, `probe_id: ${probeId}`);
}

/** An alias bomb: 9^7 strings if expanded. */
export const ALIAS_BOMB = `probe_id: probe_bomb
type: signal
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`;

/** Flow nesting `depth` levels deep (100,000 levels crash the YAML parser when it is not bounded first). */
export function deepFlow(depth: number, probeId = 'probe_deep'): string {
  return `probe_id: ${probeId}\ntype: signal\ncontract: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

/** A tenant whose kls.sqlite is not SQLite (its queries answer 503). */
export function writeBrokenTenant(dataDir: string, pack = 'ost', slug = 'kaputt'): string {
  const dir = path.join(dataDir, 'kls', pack, slug);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'kls.sqlite'), 'not a database\n'.repeat(100));
  return `${pack}.${slug}`;
}

/** Writes a Node script and returns it as a SIGNAL_*_CMD value (JSON argument vector). */
export function scriptCommand(dir: string, name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return JSON.stringify([process.execPath, file]);
}
