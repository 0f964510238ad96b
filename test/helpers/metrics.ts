import { expect } from 'chai';

/** One parsed sample line: `name{label="value",...} number`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: samples, and the `# HELP` and `# TYPE` of each metric family. */
export interface Exposition {
  samples: Sample[];
  help: Map<string, string>;
  types: Map<string, string>;
  /** The value of the one sample of `name` with exactly `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/y;

/** A sample value as Prometheus reads it (Go's ParseFloat: `NaN` and `Inf` in any case; prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  expect(text, `value of: ${line}`).to.match(/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    expect(match, `labels at ${at} of: ${line}`).to.not.equal(null);
    labels[match![1]!] = match![2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
  }
  return labels;
}

/**
 * Parses the Prometheus text format 0.0.4 strictly: every line must be blank, `# HELP name text`,
 * `# TYPE name type` or a sample `name{labels} value` (a line that is none of them fails the test).
 */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  expect(text.endsWith('\n'), 'the exposition ends with LF').to.equal(true);
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const comment = new RegExp(`^# (HELP|TYPE) (${NAME}) (.+)$`).exec(line);
    if (comment !== null) {
      (comment[1] === 'HELP' ? help : types).set(comment[2]!, comment[3]!);
      if (comment[1] === 'TYPE') expect(comment[3], line).to.be.oneOf(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
      continue;
    }
    const sample = SAMPLE.exec(line);
    expect(sample, `not a sample line: ${line}`).to.not.equal(null);
    samples.push({ name: sample![1]!, labels: parseLabels(sample![2] ?? '', line), value: parseValue(sample![3]!, line) });
  }
  const key = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
  return {
    samples,
    help,
    types,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && key(s.labels) === key(labels));
      expect(found.length, `samples of ${name} ${key(labels)}`).to.be.at.most(1);
      return found[0]?.value;
    },
  };
}

/** GETs `/metrics` of the server at `url` and parses it. */
export async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).to.equal(200);
  return parseExposition(await res.text());
}
