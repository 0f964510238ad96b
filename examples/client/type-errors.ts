// Requests and answers the generated types must refuse. tsc fails on an unused `@ts-expect-error`, so these lines
// fail the check in test/client/generated-client.test.ts if the generated types ever loosen (to `any`, say).
// Compiled only, never called.
import type { Client } from '../../build/client/client/index.js';
import { createView, getDbStatus, getHealth, getIdentity, getJumpbar, listViews } from '../../build/client/index.js';

/** Calls that must not compile. */
export async function refusedByTheTypes(client: Client): Promise<void> {
  // @ts-expect-error listViews needs the tenant
  await listViews({ client, query: {} });
  // @ts-expect-error getDbStatus takes the tenant in the path
  await getDbStatus({ client });
  // @ts-expect-error a view needs a name
  await createView({ client, body: { tenant: 'kantonsspital', entity: 'cost_centres', params: {} } });
  // @ts-expect-error the jumpbar mode is one of the contract's modes
  await getJumpbar({ client, query: { mode: 'everything' } });

  const { data: health } = await getHealth({ client });
  // @ts-expect-error the status is 'ok' or 'degraded', not any string
  const status: 'ok' | 'error' | undefined = health?.status;
  const { error } = await getIdentity({ client });
  // @ts-expect-error a Problem has no member `message`
  void [status, error?.message];
}
