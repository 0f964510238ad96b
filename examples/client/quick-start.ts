// The example of a generated client in docs/clients.md, compiled and run by
// test/client/generated-client.test.ts so that it keeps working.
import { createClient } from '../../build/client/client/index.js';
import { getHealth, listViews } from '../../build/client/index.js';

/** A client with a base URL and a bearer token, and two calls: the health, and the names of a tenant's saved views. */
export async function savedViewNames(baseUrl: string, accessToken: string): Promise<{ health: string; views: string[] }> {
  const desk = createClient({ baseUrl, auth: () => accessToken });

  const { data: health } = await getHealth({ client: desk }); // public: sent without the token
  const { data, error } = await listViews({ client: desk, query: { tenant: 'kantonsspital' } });
  if (error) throw new Error(`${error.status} ${error.title}: ${error.detail}`); // error is typed as the contract's Problem
  return { health: health?.status ?? 'unknown', views: data.views.map((view) => view.name) };
}
