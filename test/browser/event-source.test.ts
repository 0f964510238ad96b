import { expect } from 'chai';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Browser, Request } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { addNotebookCell } from '../helpers/collaboration.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A TCP relay in front of the server whose connections can be cut at once (the network between browser and server). */
async function startRelay(target: number): Promise<{ url: string; cutAll: () => void; refuse: (refusing: boolean) => void; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const relay = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    cutAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    /** While refusing, every new connection is closed at once. */
    refuse: (value) => {
      refusing = value;
    },
    close: () => new Promise((resolve) => relay.close(() => resolve())),
  };
}

// The web UI's side of GET /{tenant}/api/events in headless Chromium (test/helpers/browser.ts says where it is looked
// for): the browser's own EventSource, its own reconnection and its own Last-Event-ID.
describe('GET /{tenant}/api/events in a browser (EventSource)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: TestServer;
  let relay: Awaited<ReturnType<typeof startRelay>>;

  before(async () => {
    browser = await launchChromium();
    server = await startTestServer({ env: { EVENTS_RETRY_MS: '200' } });
    relay = await startRelay(server.port);
  });
  after(async () => {
    await browser?.close();
    await relay?.close();
    await server?.close();
  });

  it('sees a cell added through the API, loses the connection, and resumes with Last-Event-ID without losing an event', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const streamRequests: Request[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/kantonsspital/api/events')) streamRequests.push(request);
      });
      await page.goto(`${relay.url}/health`);
      // the page's script, as the web UI would run it (a string: the tests compile without the DOM's types)
      await page.evaluate(`
        window.live = { events: [], opened: 0, errors: 0 };
        const source = new EventSource('/kantonsspital/api/events');
        source.addEventListener('open', () => window.live.opened++);
        source.addEventListener('error', () => window.live.errors++);
        for (const type of ['notebook-cell-added', 'reload']) {
          source.addEventListener(type, (event) => window.live.events.push({ id: event.lastEventId, type, data: JSON.parse(event.data) }));
        }
      `);
      const live = (): Promise<{ events: { id: string; type: string; data: { id: string } }[]; opened: number; errors: number }> => page.evaluate('window.live');
      await page.waitForFunction('window.live.opened === 1');

      const first = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'seen live' } });
      await page.waitForFunction('window.live.events.length === 1');
      expect((await live()).events[0]).to.deep.include({ type: 'notebook-cell-added' });
      expect((await live()).events[0]!.data.id).to.equal(first.id);

      // the network drops the stream; a colleague's change is made while the browser is away
      relay.refuse(true);
      relay.cutAll();
      await page.waitForFunction('window.live.errors >= 1');
      const second = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'made while away' } });
      expect((await live()).events).to.have.length(1);
      relay.refuse(false);
      await page.waitForFunction('window.live.events.length >= 2');
      const third = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'after the return' } });
      await page.waitForFunction('window.live.events.length >= 3');

      const { events, opened } = await live();
      expect(opened).to.equal(2);
      expect(events.map((e) => e.type)).to.deep.equal(['notebook-cell-added', 'notebook-cell-added', 'notebook-cell-added']);
      expect(events.map((e) => e.data.id)).to.deep.equal([first.id, second.id, third.id]);
      expect(new Set(events.map((e) => e.id)).size).to.equal(3);
      // the browser reconnected by itself and named the last event it had
      expect(await streamRequests[0]!.headerValue('last-event-id')).to.equal(null);
      expect(await streamRequests.at(-1)!.headerValue('last-event-id')).to.equal(events[0]!.id);
    } finally {
      await context.close();
    }
  });
});
