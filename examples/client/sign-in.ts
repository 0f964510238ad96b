// With sign-in (AUTH_MODE=oidc): what the generated client does with the bearer token. Run by
// test/client/generated-client.test.ts against a server trusting a local OpenID provider.
import { getHealth, getIdentity, type Identity, type Problem } from '../../build/client/index.js';
import { check, deskClient, ok, refused, type Target } from './desk-client.js';

/**
 * Without a token a protected operation answers 401 typed as `Problem` and a public one answers; with the token
 * (`auth`) the client sends `Authorization: Bearer <token>` and the server answers as the caller. Returns the caller.
 */
export async function checkBearerToken(target: Target & { token: string }): Promise<Identity> {
  const anonymous = deskClient({ baseUrl: target.baseUrl, ...(target.fetch === undefined ? {} : { fetch: target.fetch }) });
  const denied = await refused('getIdentity', getIdentity({ client: anonymous }));
  const problem: Problem = denied.error;
  check(denied.status === 401 && problem.status === 401 && problem.detail.length > 0, `getIdentity without a token answered ${denied.status}`);
  const health = await ok('getHealth', getHealth({ client: anonymous }));
  check(health.status === 'ok', 'getHealth needs no token');

  const answer = await getIdentity({ client: deskClient(target) });
  check(answer.request?.headers.get('authorization') === `Bearer ${target.token}`, 'the client sends the token as a bearer token');
  return ok('getIdentity', Promise.resolve(answer));
}
