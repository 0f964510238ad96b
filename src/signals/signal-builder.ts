import type { components } from '../../generated/openapi.js';
import type { SignalBuilder, ToolFailure, LoadOutcome, SaveOutcome } from '../ports/signals.js';
import { readLeased, type TenantEntry, type Tenants } from '../tenants/tenants.js';
import type { AfsDefinitions, DefinitionListItem } from './afs-store.js';
import { readGoldSchema } from './gold-schema.js';
import type { SignalTools } from './signal-tools.js';
import { SignalToolError } from './tool-process.js';

type Schemas = components['schemas'];

/** The signal builder: the AFS folder's definitions and the signal tools, against the Gold tables of a tenant's file. */
export class AfsSignalBuilder implements SignalBuilder {
  constructor(
    private readonly tenants: Pick<Tenants, 'lease'>,
    private readonly definitions: AfsDefinitions,
    private readonly tools: SignalTools,
  ) {}

  async list(entry: TenantEntry): Promise<Schemas['SignalListItem'][]> {
    const gold = await readLeased(this.tenants, entry, (db) => readGoldSchema(db, entry.compositeId));
    return (await this.definitions.list(gold)).map(toApiSignalListItem);
  }

  load(probeId: string): Promise<LoadOutcome> {
    return this.definitions.load(probeId);
  }

  save(probeId: string, yaml: string, force: boolean): Promise<SaveOutcome> {
    return this.definitions.save(probeId, yaml, force);
  }

  async validate(yaml: string, entry: TenantEntry | null): Promise<Schemas['ValidationResult'] | ToolFailure> {
    const gold = entry === null ? null : await readLeased(this.tenants, entry, (db) => readGoldSchema(db, entry.compositeId));
    return toolFailureOf(async () => {
      const { valid, errors } = await this.tools.validate(yaml, gold);
      return { valid, errors };
    });
  }

  async compile(yaml: string, entry: TenantEntry | null): Promise<Schemas['CompileSuccess'] | Schemas['CompileFailure'] | ToolFailure> {
    const gold = entry === null ? null : await readLeased(this.tenants, entry, (db) => readGoldSchema(db, entry.compositeId));
    return toolFailureOf(async () => {
      const outcome = await this.tools.compile(yaml, gold);
      return outcome.ok ? { ok: true, sql: outcome.sql } : { ok: false, errors: outcome.errors };
    });
  }
}

/** What `run` answers, or the failure of the tool it ran. */
async function toolFailureOf<T>(run: () => Promise<T>): Promise<T | ToolFailure> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof SignalToolError)) throw err;
    return { toolFailed: err.message, stderr: err.stderr };
  }
}

function toApiSignalListItem(item: DefinitionListItem): Schemas['SignalListItem'] {
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
