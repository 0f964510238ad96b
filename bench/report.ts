import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The page the benches write their latest results into (never edited by hand between its markers). */
export const BENCHMARKS_PAGE = path.join(import.meta.dirname, '..', 'docs', 'benchmarks.md');

/** The machine a run measured on, for the line under each section. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.availableParallelism()} × ${cpu}, Node ${process.version}`;
}

/**
 * Replaces the section `id` of `file` (docs/benchmarks.md unless another page is given), between `<!-- bench:id -->`
 * and `<!-- /bench:id -->`, with `markdown` and the machine line; a section not on the page yet is appended. The rest
 * of the page is kept.
 */
export function writeBenchSection(id: string, markdown: string, command = `npm run bench -- ${id}`, file = BENCHMARKS_PAGE): void {
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const body = `${start}\n${markdown.trim()}\n\n_Measured by \`${command}\`, ${machineLine()}._\n${end}`;
  const page = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  const next = from >= 0 && to > from ? page.slice(0, from) + body + page.slice(to + end.length) : `${page.trimEnd()}\n\n${body}\n`;
  fs.writeFileSync(file, next);
  console.log(`docs/${path.basename(file)}: section ${id} written`);
}
