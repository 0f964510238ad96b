import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { forbidden, invalidRequest, Problem } from '../src/common/problems.js';

/**
 * POST /api/probe-builder/save: writes signals/<probe_id>.yaml atomically; 403 unless the caller may use every
 * tenant (the definitions are read for all of them); 409 when it exists and force is not set.
 */
export async function saveSignalDefinition(input: Input<'saveSignalDefinition'>, deps: Deps): Promise<Result<'saveSignalDefinition'>> {
  if (!deps.tenants.scope.everything) {
    throw forbidden('saving a signal definition changes it for every tenant; it needs "*" in the token\'s tenants claim');
  }
  const { probe_id: probeId, yaml } = input.body;
  const outcome = await deps.signals.save(probeId, yaml, input.query.force === true);
  if (outcome.kind === 'invalid') throw invalidRequest([{ in: 'body', name: 'yaml', message: outcome.message }]);
  if (outcome.kind === 'exists') throw new Problem('conflict', `signals/${probeId}.yaml exists; save with force=true to overwrite it`);
  return { status: 200, body: { saved: true, path: outcome.path } };
}
