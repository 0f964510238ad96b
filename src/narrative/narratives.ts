import type { LabelledCount, NarrativeOutcome } from '../metrics/metrics.js';
import type { AfsDefinitions } from '../signals/afs-store.js';
import type { KlsLease } from '../tenants/tenants.js';
import { readEntityRecords, readSignalFromAfs, readSignalFromKls, type EntityRecords, type SignalInfo } from './enrichment.js';
import type { LanguageModel } from './language-model.js';
import type { NarrativeFinding, NarrativeLocale, NarrativeWriter, WrittenNarrative } from '../ports/outbound.js';
import { buildNarrativePrompt } from './prompt.js';
import { firstSentences } from './sentences.js';


/** Narratives of findings: the finding enriched from the tenant file and the AFS, written by the language model. */
export class Narratives implements NarrativeWriter {
  constructor(
    private readonly model: LanguageModel,
    private readonly definitions: Pick<AfsDefinitions, 'read'>,
    private readonly calls: LabelledCount<'outcome', NarrativeOutcome>,
  ) {}

  /** 3 to 4 sentences on `finding` in `locale`; `lease` (the finding's tenant file) is released before the model is called. */
  async write(lease: KlsLease, finding: NarrativeFinding, locale: NarrativeLocale): Promise<WrittenNarrative> {
    let records: EntityRecords[];
    let signal: SignalInfo | null;
    try {
      records = readEntityRecords(lease.db, { entityType: finding.entity_type, entityId: finding.entity_id, timeBucket: finding.time_bucket });
      signal = readSignalFromKls(lease.db, finding.probe_id);
    } finally {
      lease.release();
    }
    signal ??= await readSignalFromAfs(this.definitions, finding.probe_id);
    const written = await this.model.write(buildNarrativePrompt(finding, signal, records, locale));
    this.calls.inc({ outcome: written.ok ? 'ok' : written.failure });
    const rows = records.reduce((sum, group) => sum + group.rows.length, 0);
    if (!written.ok) return { ok: false, message: written.message, rows };
    return { ok: true, narrative: firstSentences(written.text, locale), model: written.model, rows };
  }
}
