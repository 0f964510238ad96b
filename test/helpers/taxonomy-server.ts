import fs from 'node:fs';
import path from 'node:path';
import { addBrokenTenant } from './broken-tenant.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from './server.js';

/** A test server over a copy of the demo data plus the unusable tenant `ost.kaputt` (for 503). */
export async function startServerWithBrokenTenant(): Promise<TestServer> {
  const data = tempDir('ads-i5-');
  fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
  addBrokenTenant(path.join(data.dir, 'kls'));
  const server = await startTestServer({ dataDir: data.dir });
  return {
    ...server,
    async close() {
      await server.close();
      data.remove();
    },
  };
}
