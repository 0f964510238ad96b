import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /api/probe-builder/validate: runs the contract checker on the YAML (and the tenant's Gold tables when given). */
export async function validateSignalDefinition(input: Input<'validateSignalDefinition'>, deps: Deps): Promise<Result<'validateSignalDefinition'>> {
  const tenant = input.body.tenant === undefined ? null : deps.tenants.resolve(input.body.tenant, { in: 'body', name: 'tenant' });
  const outcome = await deps.signals.validate(input.body.yaml, tenant);
  if ('toolFailed' in outcome) {
    deps.log.error({ error: outcome.toolFailed, stderr: outcome.stderr, requestId: input.requestId }, 'signal checker failed');
    throw new Problem('bad-gateway', `the signal checker failed: ${outcome.toolFailed}`);
  }
  return { status: 200, body: outcome };
}
