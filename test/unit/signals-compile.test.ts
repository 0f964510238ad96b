import Database from 'better-sqlite3';
import { expect } from 'chai';
import { checkDefinition } from '../../src/signals/definition-check.js';
import type { CheckedSignal } from '../../src/signals/definition-rules.js';
import { FINDING_COLUMNS, compileSignalSql, identifier, literalSql } from '../../src/signals/sql-compile.js';
import { compileOutcome } from '../../src/signals/tool-outcomes.js';

const HOSTILE_TEXTS = [
  "x' OR '1'='1",
  "'); DROP TABLE gold_cases; --",
  '" OR 1=1 --',
  "a''b",
  '\\\'; SELECT 1; --',
  'line\nbreak\r\n',
  '%_*?',
  '𝔘nicode ünïcödé \u2028',
  '/* comment',
  '-- dash',
  ';',
];

function memoryDb(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE gold_cases (case_id TEXT, status TEXT, billed INTEGER, expected_amount REAL, discharged_on TEXT)');
  db.exec('CREATE TABLE findings (x)');
  const insert = db.prepare('INSERT INTO gold_cases VALUES (?, ?, ?, ?, ?)');
  HOSTILE_TEXTS.forEach((text, index) => insert.run(`C-${index}`, text, index % 2, index * 1000.5, '2026-10-01'));
  insert.run('C-null', null, null, null, null);
  return db;
}

function signal(where: CheckedSignal['where']): CheckedSignal {
  return {
    probe_id: 'probe_hostile',
    entity_type: 'Case',
    source: 'gold_cases',
    entity_id: 'case_id',
    time_bucket: 'discharged_on',
    money_at_risk: 'expected_amount',
    where,
    severity: [{ level: 'high', when: { column: 'status', op: '=', value: "'; DELETE FROM findings; --" } }, { level: 'low' }],
    evidence: ['status'],
  };
}

/** Prepares the SQL as exactly one read-only statement with the finding columns, and runs it. */
function runOne(db: Database.Database, sql: string): Record<string, unknown>[] {
  const statement = db.prepare(sql); // better-sqlite3 refuses text holding more than one statement
  expect(statement.reader).to.equal(true);
  expect(statement.readonly).to.equal(true);
  expect(statement.columns().map((column) => column.name)).to.deep.equal([...FINDING_COLUMNS]);
  return statement.all() as Record<string, unknown>[];
}

describe('single-signal SQL compiler', () => {
  it('compiles the example to the documented statement', () => {
    const checked = checkDefinition(`probe_id: probe_x
type: signal
name: {en: X, de: X, fr: X}
contract:
  entity_type: Case
  source: gold_cases
  entity_id: case_id
  severity: [{level: low}]
`).signal as CheckedSignal;
    expect(compileSignalSql(checked)).to.equal(
      `SELECT 'probe_x' AS "probe_id", 'Case' AS "entity_type", "case_id" AS "entity_id", NULL AS "time_bucket", 'low' AS "severity", 0 AS "money_at_risk", json_object() AS "evidence" FROM "gold_cases" ORDER BY 3`,
    );
    const rows = runOne(memoryDb(), compileSignalSql(checked));
    expect(rows).to.have.length(HOSTILE_TEXTS.length + 1);
    expect(rows[0]).to.deep.equal({ probe_id: 'probe_x', entity_type: 'Case', entity_id: 'C-0', time_bucket: null, severity: 'low', money_at_risk: 0, evidence: '{}' });
  });

  it('keeps hostile values as data: each = literal matches exactly its own row, the statement stays one SELECT', () => {
    const db = memoryDb();
    for (const [index, text] of HOSTILE_TEXTS.entries()) {
      const rows = runOne(db, compileSignalSql(signal([{ column: 'status', op: '=', value: text }])));
      expect(rows.map((row) => row['entity_id']), JSON.stringify(text)).to.deep.equal([`C-${index}`]);
      expect(JSON.parse(String(rows[0]?.['evidence']))).to.deep.equal({ status: text });
    }
    const inList = runOne(db, compileSignalSql(signal([{ column: 'status', op: 'in', value: HOSTILE_TEXTS }])));
    expect(inList).to.have.length(HOSTILE_TEXTS.length);
    const notIn = runOne(db, compileSignalSql(signal([{ column: 'status', op: 'not_in', value: HOSTILE_TEXTS }])));
    expect(notIn).to.deep.equal([]);
    expect(db.prepare('SELECT count(*) FROM findings').pluck().get()).to.equal(0);
    expect(db.prepare('SELECT count(*) FROM gold_cases').pluck().get()).to.equal(HOSTILE_TEXTS.length + 1);
  });

  it('keeps random texts as data (200 generated values of quotes, semicolons, comments and unicode)', () => {
    const db = memoryDb();
    const alphabet = ["'", '"', ';', '-', '/', '*', '\\', '\n', ' ', 'a', 'Z', '(', ')', '%', '_', 'é', '🙂', '\u0001', '`', '['];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 200; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 20) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const rows = runOne(db, compileSignalSql(signal([{ column: 'status', op: '=', value: text }])));
      expect(rows.length, JSON.stringify(text)).to.equal(HOSTILE_TEXTS.includes(text) ? 1 : 0);
    }
  });

  it('emits numbers and booleans as plain literals, negatives parenthesised', () => {
    expect(literalSql(-5)).to.equal('(-5)');
    expect(literalSql(1e300)).to.equal('1e+300');
    expect(literalSql(0.25)).to.equal('0.25');
    expect(literalSql(true)).to.equal('1');
    expect(literalSql("it's")).to.equal("'it''s'");
    expect(() => literalSql(Number.NaN)).to.throw();
    expect(() => literalSql('a\u0000b')).to.throw();
    const db = memoryDb();
    const rows = runOne(db, compileSignalSql(signal([{ column: 'expected_amount', op: '>', value: -1 }, { column: 'billed', op: '=', value: true }])));
    expect(rows.map((row) => row['entity_id'])).to.deep.equal(['C-1', 'C-3', 'C-5', 'C-7', 'C-9']);
  });

  it('refuses identifiers that are not ^[a-z_][a-z0-9_]*$ even if a checked signal carried one', () => {
    for (const name of ['a"b', 'A', '1a', 'a b', 'a;', '', 'x'.repeat(65)]) expect(() => identifier(name), name).to.throw();
    expect(() => compileSignalSql({ ...signal([]), source: 'gold_cases" --' })).to.throw();
  });

  it('refuses hostile names and values before compiling (checker errors, no SQL)', () => {
    const hostile = (replace: string): string => `probe_id: probe_x
type: signal
name: {en: X, de: X, fr: X}
contract:
  entity_type: Case
  source: gold_cases
  entity_id: case_id
  where: [${replace}]
  severity: [{level: low}]
`;
    for (const condition of ['{column: "status\\" --", op: "=", value: 1}', '{column: status, op: "= 1 OR 1=1 --", value: 1}', '{column: status, op: "=", value: "a\\0b"}', '{column: status, op: "=", value: {nested: 1}}']) {
      const outcome = compileOutcome(hostile(condition), null);
      expect(outcome.ok, condition).to.equal(false);
    }
    const valueWithQuotes = compileOutcome(hostile(`{column: status, op: "=", value: "x' OR '1'='1"}`), null);
    expect(valueWithQuotes.ok).to.equal(true);
    if (valueWithQuotes.ok) expect(valueWithQuotes.sql).to.include(`"status" = 'x'' OR ''1''=''1'`);
  });
});
