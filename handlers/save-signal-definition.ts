import type { Deps } from '../src/deps.js';
import type { Input, Result } from '../src/http/contract.js';
import { invalidRequest } from '../src/http/errors.js';
import { problemResult } from '../src/http/results.js';
import { saveSignal } from '../src/signals/afs-store.js';

/** POST /api/probe-builder/save: writes signals/<probe_id>.yaml atomically; 409 when it exists and force is not set. */
export async function saveSignalDefinition(input: Input<'saveSignalDefinition'>, deps: Deps): Promise<Result<'saveSignalDefinition'>> {
  const { probe_id: probeId, yaml } = input.body;
  const outcome = await saveSignal(deps.config.afsDir, probeId, yaml, input.query.force === true, deps.signalTools.definitions.parser);
  if (outcome.kind === 'invalid') throw invalidRequest([{ in: 'body', name: 'yaml', message: outcome.message }]);
  if (outcome.kind === 'exists') return problemResult('conflict', `signals/${probeId}.yaml exists; save with force=true to overwrite it`);
  return { status: 200, body: { saved: true, path: outcome.path } };
}
