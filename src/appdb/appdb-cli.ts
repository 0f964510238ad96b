#!/usr/bin/env node
// `ads-appdb copy --from <url> --to <url> [--replace] [--dry-run]`: copies the app database from one URL to another
// (SQLite to PostgreSQL and back); docs/deployment.md walks a move. Exit codes: see runAppDbCommand.
import '../node-version.js';
import { maskedText } from '../common/secrets.js';
import { runAppDbCommand } from './copy/command.js';
import { removeUncommittedFiles } from './copy/copy.js';

// Node prints a warning over several lines (node-postgres' on sslmode=require is nine); the command's lines are
// one each, so its warnings are its first line, masked as every other line
process.removeAllListeners('warning');
process.on('warning', (warning) => process.stderr.write(`ads-appdb: warning: ${maskedText(warning.message.split('\n')[0]!.trim())}\n`));

const interrupt = new AbortController();
// the first SIGINT or SIGTERM rolls the copy back at its next batch; a second one ends the process at once (the
// transaction dies with the connection or the file's uncommitted journal, and a new SQLite file is removed)
const stopOn = (signal: 'SIGINT' | 'SIGTERM', code: number): void => {
  process.on(signal, () => {
    if (interrupt.signal.aborted) {
      removeUncommittedFiles();
      process.exit(code);
    }
    interrupt.abort(signal);
  });
};
stopOn('SIGINT', 130);
stopOn('SIGTERM', 143);
process.exitCode = await runAppDbCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signal: interrupt.signal });
