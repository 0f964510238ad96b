/** Something a progress line is written to (process.stderr in the CLI). */
export interface ProgressStream {
  write(text: string): boolean;
  columns?: number;
}

/** A progress bar on one terminal line, redrawn with `\r`; redraws at most when the shown text changes. */
export interface ProgressBar {
  update(done: number, total: number, label: string): void;
  /** Ends the bar's line. */
  finish(): void;
}

/** Renders `[#####-----]  50% label` to fit `width` columns. */
export function renderProgressLine(done: number, total: number, label: string, width = 80): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const barWidth = 24;
  const filled = Math.round(ratio * barWidth);
  const head = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% `;
  const room = Math.max(0, width - head.length - 1);
  const shown = label.length > room ? `${label.slice(0, Math.max(0, room - 1))}…` : label;
  return (head + shown).padEnd(width - 1);
}

/** Creates a progress bar writing to `stream`. */
export function createProgressBar(stream: ProgressStream): ProgressBar {
  let last = '';
  let drawn = false;
  return {
    update(done, total, label) {
      const line = renderProgressLine(done, total, label, stream.columns || 80);
      if (line === last) return;
      last = line;
      drawn = true;
      stream.write(`\r${line}`);
    },
    finish() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
