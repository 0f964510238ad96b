import { parseArgs } from 'node:util';
import { maskedText } from '../../common/secrets.js';
import { copyAppDatabase } from './copy.js';
import { appDbEndpoint } from './endpoints.js';
import { CopyFailure, CopyInterrupted, CopyRefusal, oneLine } from './failures.js';
import { streamProgress, type ProgressStream } from './progress.js';

/** How `ads-appdb` is used, printed for `--help` and after a usage error. */
export const USAGE = 'usage: ads-appdb copy --from <app database URL> --to <app database URL> [--replace] [--dry-run]';

/** Where the command writes, what stops it, and where relative SQLite paths start. */
export interface CommandIo {
  readonly stdout: ProgressStream;
  readonly stderr: ProgressStream;
  /** Aborted by SIGINT or SIGTERM (the reason names it): a running copy rolls back. */
  readonly signal?: AbortSignal;
  readonly cwd?: string;
}

/**
 * Runs `ads-appdb <argv>` and resolves with its exit code: 0 copied (or a dry run that would copy), 1 failed and
 * rolled back, 2 refused with nothing written (usage, an option given twice, URL, unreachable, not an app database,
 * schema, target holds data, read-only or locked target, missing folder, both naming one database), 130 (SIGINT) or
 * 143 (SIGTERM) interrupted and rolled back (docs/deployment.md). Every refusal or failure is one line on standard error, secrets masked.
 */
export async function runAppDbCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const fail = (line: string, code: number): number => {
    io.stderr.write(`ads-appdb: ${oneLineOf(line)}\n`);
    return code;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      tokens: true,
      options: { from: { type: 'string' }, to: { type: 'string' }, replace: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, help: { type: 'boolean' } },
    });
  } catch (err) {
    // parseArgs names the option, never its value; an unknown "option" may be a URL with its password all the same
    // (`--postgres://…`), so one that is not a plain option name is not shown. Its advice on positionals is no help.
    const line = oneLine(err)
      .split('. ')[0]!
      .replace(/\.$/, '')
      .replace(/'([^']*)'/g, (quoted, option: string) => (/^-{1,2}[A-Za-z0-9][\w-]*( <value>)?$/.test(option) ? quoted : '(not shown: no option name)'));
    return fail(`${maskedText(line)}; ${USAGE}`, 2);
  }
  const { values, positionals, tokens } = parsed;
  // parseArgs keeps the last of a repeated option; a second --from or --to is more likely a slip than a choice
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) return fail(`--${token.name} given more than once; ${USAGE}`, 2);
    seen.add(token.name);
  }
  if (values.help === true) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // what was given instead is not echoed: it may be a URL with its password
  if (positionals.length !== 1 || positionals[0] !== 'copy') return fail(`expected one command, copy; ${USAGE}`, 2);
  if (values.from === undefined || values.to === undefined) return fail(`--from and --to are both required; ${USAGE}`, 2);
  try {
    const request = {
      from: appDbEndpoint('source', '--from', values.from, io.cwd),
      to: appDbEndpoint('target', '--to', values.to, io.cwd),
      replace: values.replace === true,
      dryRun: values['dry-run'] === true,
    };
    await copyAppDatabase(request, {
      out: (line) => io.stdout.write(`${oneLineOf(line)}\n`),
      warn: (line) => io.stderr.write(`ads-appdb: ${oneLineOf(line)}\n`),
      progress: streamProgress(io.stderr),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    return 0;
  } catch (err) {
    if (err instanceof CopyRefusal || err instanceof CopyFailure || err instanceof CopyInterrupted) return fail(err.message, err.exitCode);
    // not a refusal the copy names itself: no detail beyond the error's first line, which carries no URL
    return fail(`unexpected failure, nothing committed: ${maskedText(oneLine(err))}`, 1);
  }
}

/** `line` as one line: a line break or other control character in it (a path may hold one) written as `\n`, `\u0007`. */
function oneLineOf(line: string): string {
  return line.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
