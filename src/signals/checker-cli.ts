#!/usr/bin/env node
// Signal contract checker: `ads-signal-check FILE [--gold-schema SCHEMA.json]` prints {"valid","errors"} as one JSON
// line (exit 0 valid, 1 invalid, 2 usage or I/O failure). `--serve` answers JSON lines {id, file, gold?} instead.
import { goldSchemaFrom, checkOutcome } from './tool-outcomes.js';
import { parseCliOptions, printAnswer, printFailure, readGoldSchemaFile, readTextFile, serveLines } from './cli-support.js';

async function main(): Promise<void> {
  const options = parseCliOptions(process.argv.slice(2));
  if (options.serve) {
    await serveLines((request) => {
      if (typeof request['file'] !== 'string') throw new Error('request needs "file"');
      return checkOutcome(readTextFile(request['file']), request['gold'] == null ? null : goldSchemaFrom(request['gold']));
    });
    return;
  }
  const [file, ...rest] = options.positional;
  if (file === undefined || rest.length > 0) throw new Error('usage: ads-signal-check FILE [--gold-schema SCHEMA.json] | --serve');
  const outcome = checkOutcome(readTextFile(file), readGoldSchemaFile(options.goldSchemaFile));
  printAnswer(outcome, outcome.valid);
}

main().catch(printFailure);
