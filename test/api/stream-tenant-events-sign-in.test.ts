import { expect } from 'chai';
import { EventStreamClient } from '../helpers/event-stream.js';
import { call } from '../helpers/http.js';
import { bearer, signInWorld } from '../helpers/sign-in.js';

const EVENTS = '/ost.kantonsspital/api/events';

describe('GET /{tenant}/api/events with sign-in', function () {
  this.timeout(60_000);
  const world = signInWorld();

  /** A refused stream: the problem and nothing else. */
  const refused = async (headers: Record<string, string>, path = EVENTS): Promise<{ status: number; body: Record<string, any> }> => {
    const stream = await EventStreamClient.open(world.server.url, path, headers);
    const text = await stream.body();
    expect(stream.headers['content-type']).to.equal('application/problem+json');
    expect(text).not.to.match(/^(id|event|data|retry):/m);
    return { status: stream.status, body: JSON.parse(text) };
  };

  it('answers 401 without a token and with an expired one, 403 without the viewer role, sending no event', async () => {
    expect((await refused({})).status).to.equal(401);
    const expired = await world.provider.token({}, { expiresIn: -3600 });
    expect((await refused(bearer(expired))).status).to.equal(401);
    const noRole = await world.provider.token({ sub: 'u-none', roles: ['auditor'] });
    const forbidden = await refused(bearer(noRole));
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body.detail).to.include('streamTenantEvents needs the role viewer');
  });

  it('answers a tenant outside the token\'s claim exactly like an unknown one (404), sending no event', async () => {
    const westOnly = await world.provider.token({ sub: 'u-west', tenants: ['west.*'], roles: ['viewer'] });
    const outside = await refused(bearer(westOnly));
    const unknown = await refused(bearer(westOnly), '/ost.nosuchtenant/api/events');
    expect([outside.status, unknown.status]).to.deep.equal([404, 404]);
    expect({ ...outside.body, requestId: null, instance: null, detail: outside.body.detail.replaceAll('kantonsspital', 'nosuchtenant') }).to.deep.equal({
      ...unknown.body,
      requestId: null,
      instance: null,
    });
  });

  it('names who made the change, from the writer\'s token, to a viewer', async () => {
    const viewer = await world.provider.token({ sub: 'u-viewer', roles: ['viewer'] });
    const editor = await world.provider.token({ sub: 'u-editor', name: 'Lukas Meier', email: 'lukas@example.ch', roles: ['editor'] });
    const stream = await EventStreamClient.open(world.server.url, EVENTS, bearer(viewer));
    expect(stream.status).to.equal(200);
    expect(stream.headers['cache-control']).to.include('no-store');
    await stream.started();
    const added = await call(world.server.url, `/ost.kantonsspital/api/notebook/cells`, { method: 'POST', headers: bearer(editor), json: { cell: { type: 'narrative', text: { en: 'signed' } } } });
    expect(added.status).to.equal(201);
    const [event] = await stream.take(1);
    expect(JSON.parse(event!.data).by).to.deep.equal({ sub: 'u-editor', name: 'Lukas Meier', email: 'lukas@example.ch' });
    stream.close();
  });

  it('ends the stream when the token expires', async () => {
    const shortLived = await world.provider.token({ roles: ['viewer'] }, { expiresIn: 2 });
    const stream = await EventStreamClient.open(world.server.url, EVENTS, bearer(shortLived));
    expect(stream.status).to.equal(200);
    await stream.started();
    const opened = Date.now();
    await stream.until(() => stream.ended);
    // not before the token's exp (whole seconds: at most 2 s after it was made)
    expect(Date.now() - opened).to.be.below(5000);
    expect(stream.text.endsWith('\n\n')).to.equal(true);
  });
});
