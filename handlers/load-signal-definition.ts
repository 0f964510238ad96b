import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { strongEtag } from '../src/common/entity-tags.js';
import { taggedHeaders } from '../src/operations/results.js';

/** GET /api/probe-builder/load: the raw YAML of one definition; 404 when the tenant or the definition is unknown, or the file is a link. */
export async function loadSignalDefinition(input: Input<'loadSignalDefinition'>, deps: Deps): Promise<Result<'loadSignalDefinition'>> {
  deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const probeId = input.query.probe_id;
  const loaded = await deps.signals.load(probeId);
  switch (loaded.kind) {
    case 'text':
      // tagged by a hash of the file's text (alike on every instance reading the same AFS); 304 at the edge
      return { status: 200, body: { probe_id: probeId, yaml: loaded.text }, headers: taggedHeaders(strongEtag(`${probeId}\n${loaded.text}`)) };
    case 'absent':
      throw new Problem('not-found', `no definition "${probeId}" in the AFS`);
    case 'link':
      throw new Problem('not-found', `the file of definition "${probeId}" is a symbolic link, which the server does not follow`);
    case 'unreadable':
      throw new Problem('not-found', `definition "${probeId}" cannot be loaded: ${loaded.error}`);
  }
}
