import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /api/probe-builder/compile: feeds the YAML to the single-signal compiler; `{ok, sql}` or `{ok:false, errors}`. */
export async function compileSignalDefinition(input: Input<'compileSignalDefinition'>, deps: Deps): Promise<Result<'compileSignalDefinition'>> {
  const tenant = input.body.tenant === undefined ? null : deps.tenants.resolve(input.body.tenant, { in: 'body', name: 'tenant' });
  const outcome = await deps.signals.compile(input.body.yaml, tenant);
  if ('toolFailed' in outcome) {
    deps.log.error({ error: outcome.toolFailed, stderr: outcome.stderr, requestId: input.requestId }, 'signal compiler failed');
    throw new Problem('bad-gateway', `the signal compiler failed: ${outcome.toolFailed}`);
  }
  return { status: 200, body: outcome };
}
