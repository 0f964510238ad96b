import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { goldSchemaOf } from '../src/signals/gold-schema.js';
import { SignalToolError } from '../src/signals/tool-process.js';

/** POST /api/probe-builder/compile: feeds the YAML to the single-signal compiler; `{ok, sql}` or `{ok:false, errors}`. */
export async function compileSignalDefinition(input: Input<'compileSignalDefinition'>, deps: Deps): Promise<Result<'compileSignalDefinition'>> {
  const gold = await goldSchemaOf(deps.tenants, input.body.tenant);
  try {
    const outcome = await deps.signalTools.compile(input.body.yaml, gold);
    return { status: 200, body: outcome.ok ? { ok: true, sql: outcome.sql } : { ok: false, errors: outcome.errors } };
  } catch (err) {
    if (!(err instanceof SignalToolError)) throw err;
    deps.log.error({ err, stderr: err.stderr, requestId: input.requestId }, 'signal compiler failed');
    return problemResult('bad-gateway', `the signal compiler failed: ${err.message}`);
  }
}
