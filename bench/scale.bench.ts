// Performance at scale, every measure next to its baseline (the figures of version 0.2.0) in one run:
//   - unseen typeahead queries on a 200,000-item tenant: an open-loop sweep of the offered load (chart in bench/out/)
//     and the closed-loop throughput at 50 connections (bench/scale/search.ts);
//   - `GET /api/jumpbar?mode=tenants` against bare Koa sending the same bytes (bench/scale/jumpbar.ts);
//   - a 1,000,000-row CSV export against `sqlite3 -csv`, with the server's RSS growth (bench/scale/export.ts);
//   - idle RSS with one 200,000-item tenant (bench/scale/idle.ts);
//   - 1,000 small tenants after each served a search, a summary and an export (bench/scale/tenants.ts).
// `SCALE_QUICK=1` checks the harness on small data in about two minutes; SCALE_ONLY, SCALE_RATES and the other
// SCALE_* variables of bench/scale/settings.ts change one part. A full run writes its table into docs/benchmarks.md.
import { measureExport } from './scale/export.js';
import { measureIdle } from './scale/idle.js';
import { measureJumpbar } from './scale/jumpbar.js';
import { generateSearchData, measureSearch, type SearchData } from './scale/search.js';
import { describeSettings, MEASURES, scaleSettings } from './scale/settings.js';
import { MEASURE_ROWS, markdownTable, rowOf, type MeasureKey, type Row } from './scale/table.js';
import { measureTenants } from './scale/tenants.js';
import os from 'node:os';
import { writeBenchSection } from './report.js';

/** Runs one measure; a measure that throws becomes a failed row, and the others still run. */
async function attempt(keys: MeasureKey[], measure: () => Promise<Row | Row[]>): Promise<Row[]> {
  try {
    const rows = await measure();
    return Array.isArray(rows) ? rows : [rows];
  } catch (err) {
    console.error(`measure failed: ${(err as Error).stack ?? String(err)}`);
    return keys.map((key) => rowOf(key, '-', 'failed', (err as Error).message));
  }
}

export async function run(): Promise<void> {
  const settings = scaleSettings();
  console.log(describeSettings(settings));
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 1073741824)} GiB, Node ${process.version}`);
  const rows: Row[] = [];
  const skipped = (keys: MeasureKey[]): Row[] => keys.map((key) => rowOf(key, '-', 'not run'));
  let data: SearchData | null = null;
  try {
    if (settings.only.has('search') || settings.only.has('idle')) data = generateSearchData(settings.searchItems);
    const searchData = data;
    rows.push(...(settings.only.has('search') && searchData !== null ? await attempt(['openLoop', 'closedLoop'], () => measureSearch(settings, searchData)) : skipped(['openLoop', 'closedLoop'])));
    rows.push(...(settings.only.has('jumpbar') ? await attempt(['jumpbar'], () => measureJumpbar(settings)) : skipped(['jumpbar'])));
    rows.push(...(settings.only.has('export') ? await attempt(['export'], () => measureExport(settings)) : skipped(['export'])));
    rows.push(...(settings.only.has('idle') && searchData !== null ? await attempt(['idle'], () => measureIdle(settings, searchData)) : skipped(['idle'])));
    rows.push(...(settings.only.has('tenants') ? await attempt(['tenants'], () => measureTenants(settings)) : skipped(['tenants'])));
  } finally {
    data?.remove();
  }
  const order = Object.keys(MEASURE_ROWS);
  rows.sort((a, b) => order.findIndex((k) => MEASURE_ROWS[k as MeasureKey].measure === a.measure) - order.findIndex((k) => MEASURE_ROWS[k as MeasureKey].measure === b.measure));
  console.log(`\n${markdownTable(rows)}`);
  if (!settings.quick && settings.only.size === MEASURES.length) {
    writeBenchSection('scale', `## At scale: the goals, each beside its 0.2.0 baseline\n\n${describeSettings(settings)}\n\n${markdownTable(rows)}`);
  }
  if (rows.some((r) => r.verdict === 'failed')) process.exitCode = 1;
}
