/** What the copy reports while it runs: one table at a time, its rows copied or verified so far. */
export interface CopyProgress {
  /** A table begins: `total` rows to copy or verify. */
  begin(step: 'copying' | 'verifying', table: string, total: number): void;
  /** `done` rows of the current table so far. */
  advance(done: number): void;
  /** The current table is done. */
  end(): void;
}

/** Reports nothing. */
export const NO_PROGRESS: CopyProgress = { begin() {}, advance() {}, end() {} };

/** Where progress goes: a stream (standard error) and whether it is a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

const BAR_WIDTH = 24;
/** A terminal's line is redrawn at most this often. */
const REDRAW_MS = 100;
/** Tables of fewer rows get no lines on the way, only their last. */
const LINES_FROM_ROWS = 10_000;

const figure = (n: number): string => n.toLocaleString('en-US');
const rowsOf = (n: number): string => `${figure(n)} ${n === 1 ? 'row' : 'rows'}`;

/**
 * Progress on `stream`: on a terminal one line per table redrawn in place, with a bar and a percentage; otherwise
 * (a log, a pipe) plain lines, one each tenth of a large table and one at each table's end.
 */
export function streamProgress(stream: ProgressStream, now: () => number = Date.now): CopyProgress {
  let step = '';
  let table = '';
  let total = 0;
  let done = 0;
  let drawnAt = 0;
  let tenths = 0;
  const share = (): number => (total === 0 ? 1 : done / total);
  const percent = (): string => `${Math.floor(share() * 100)}%`;
  const draw = (): void => {
    const filled = Math.round(share() * BAR_WIDTH);
    stream.write(`\r\x1b[2K${step} ${table} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent().padStart(4)} ${figure(done)}/${figure(total)} rows`);
  };
  if (stream.isTTY === true) {
    return {
      begin(s, t, n) {
        [step, table, total, done, drawnAt] = [s, t, n, 0, now()];
        draw();
      },
      advance(n) {
        done = n;
        if (now() - drawnAt < REDRAW_MS) return;
        drawnAt = now();
        draw();
      },
      end() {
        done = total;
        draw();
        stream.write('\n');
      },
    };
  }
  return {
    begin(s, t, n) {
      [step, table, total, done, tenths] = [s, t, n, 0, 0];
    },
    advance(n) {
      done = n;
      if (total < LINES_FROM_ROWS || done >= total) return;
      const reached = Math.floor(share() * 10);
      if (reached <= tenths) return;
      tenths = reached;
      stream.write(`${step} ${table}: ${figure(done)} of ${figure(total)} rows (${percent()})\n`);
    },
    end() {
      stream.write(`${step} ${table}: ${rowsOf(total)}, done\n`);
    },
  };
}
