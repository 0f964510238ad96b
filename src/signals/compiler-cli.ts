#!/usr/bin/env node
// Single-signal compiler: reads one definition on standard input and prints {"ok":true,"sql"} or {"ok":false,"errors"}
// as one JSON line (exit 0 compiled, 1 not, 2 usage or I/O failure). `--serve` answers JSON lines {id, yaml, gold?}.
import { compileOutcome, goldSchemaFrom } from './tool-outcomes.js';
import { parseCliOptions, printAnswer, printFailure, readGoldSchemaFile, readStdin, serveLines } from './cli-support.js';

async function main(): Promise<void> {
  const options = parseCliOptions(process.argv.slice(2));
  if (options.serve) {
    await serveLines((request) => {
      if (typeof request['yaml'] !== 'string') throw new Error('request needs "yaml"');
      return compileOutcome(request['yaml'], request['gold'] == null ? null : goldSchemaFrom(request['gold']));
    });
    return;
  }
  if (options.positional.length > 0) throw new Error('usage: ads-signal-compile [--gold-schema SCHEMA.json] < DEFINITION.yaml | --serve');
  const outcome = compileOutcome(await readStdin(), readGoldSchemaFile(options.goldSchemaFile));
  printAnswer(outcome, outcome.ok);
}

main().catch(printFailure);
