import type { components } from '../generated/openapi.js';
import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { strongEtag } from '../src/common/entity-tags.js';
import { taggedHeaders } from '../src/operations/results.js';
import type { DefinitionListItem } from '../src/signals/afs-store.js';
import { readGoldSchema } from '../src/signals/gold-schema.js';

/**
 * GET /api/probe-builder/list: every AFS definition, signals marked applicable to the tenant's Gold tables. Tagged by
 * a hash of the answer (what the files and the tenant's schema say, alike on every instance); 304 by the adapter.
 */
export async function listSignalDefinitions(input: Input<'listSignalDefinitions'>, deps: Deps): Promise<Result<'listSignalDefinitions'>> {
  const gold = await deps.tenants.withKls(input.query.tenant, (db, entry) => readGoldSchema(db, entry.compositeId));
  const items = await deps.signalDefinitions.list(gold);
  const body = { probes: items.map(toApiSignalListItem) };
  return { status: 200, body, headers: taggedHeaders(strongEtag(JSON.stringify(body))) };
}

function toApiSignalListItem(item: DefinitionListItem): components['schemas']['SignalListItem'] {
  return {
    probe_id: item.probe_id,
    type: item.type,
    name: item.name,
    description: item.description,
    contract: item.contract,
    applicable: item.applicable,
    error: item.error,
  };
}
