import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { problemResult } from '../src/http/results.js';
import { loadDefinition } from '../src/signals/afs-store.js';

/** GET /api/probe-builder/load: the raw YAML of one definition; 404 when the tenant or the definition is unknown. */
export async function loadSignalDefinition(input: Input<'loadSignalDefinition'>, deps: Deps): Promise<Result<'loadSignalDefinition'>> {
  deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const probeId = input.query.probe_id;
  const yaml = await loadDefinition(deps.config.afsDir, probeId);
  if (yaml === null) return problemResult('not-found', `no definition "${probeId}" in the AFS`);
  return { status: 200, body: { probe_id: probeId, yaml } };
}
