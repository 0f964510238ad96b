import type { Missing } from '../common/missing.js';
import type { ArtifactKey, ArtifactMiss, Logo, PipelineArtifact, Report, TenantContent } from '../ports/tenant-reads.js';
import { readLeased, type TenantEntry, type Tenants } from '../tenants/tenants.js';
import { readDatabaseLogo, readLogoFile } from './logo.js';
import { readPipelineArtifact } from './pipeline-artifact.js';
import { readReport } from './report.js';

/** Logos, pipeline artifacts and reports read from the tenants' files (and the logos of LOGO_DIR). */
export class TenantContentReads implements TenantContent {
  constructor(
    private readonly tenants: Pick<Tenants, 'lease'>,
    private readonly logoDir: string,
  ) {}

  async logo(entry: TenantEntry): Promise<Logo | Missing<'logo'>> {
    return (await readLeased(this.tenants, entry, readDatabaseLogo)) ?? (await readLogoFile(this.logoDir, entry.slug)) ?? { missing: 'logo' };
  }

  pipelineArtifact(entry: TenantEntry, key: ArtifactKey): Promise<PipelineArtifact | ArtifactMiss> {
    return readLeased(this.tenants, entry, (db) => readPipelineArtifact(db, key));
  }

  report(entry: TenantEntry, key: string): Promise<Report | Missing<'report'>> {
    return readLeased(this.tenants, entry, (db) => readReport(db, key) ?? { missing: 'report' });
  }
}
