import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { goldSchemaOf } from '../src/signals/gold-schema.js';
import { SignalToolError } from '../src/signals/tool-process.js';

/** POST /api/probe-builder/validate: runs the contract checker on the YAML (and the tenant's Gold tables when given). */
export async function validateSignalDefinition(input: Input<'validateSignalDefinition'>, deps: Deps): Promise<Result<'validateSignalDefinition'>> {
  const gold = await goldSchemaOf(deps.tenants, input.body.tenant);
  try {
    const outcome = await deps.signalTools.validate(input.body.yaml, gold);
    return { status: 200, body: { valid: outcome.valid, errors: outcome.errors } };
  } catch (err) {
    if (!(err instanceof SignalToolError)) throw err;
    deps.log.error({ err, stderr: err.stderr, requestId: input.requestId }, 'signal checker failed');
    return problemResult('bad-gateway', `the signal checker failed: ${err.message}`);
  }
}
