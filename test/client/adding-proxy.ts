import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The member the proxy adds to every JSON object, as a later minor version may add one (docs/versioning.md). */
export const ADDED_MEMBER = 'addedLater';

/** A proxy in front of a server that adds a member to every JSON object of every JSON answer; other bodies pass. */
export interface AddingProxy {
  readonly url: string;
  close(): Promise<void>;
}

function withAddedMember(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withAddedMember);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = withAddedMember(value);
  copy[ADDED_MEMBER] = 'a member a later minor version sends';
  return copy;
}

/** Starts the proxy on a loopback port in front of `target` (a base URL). */
export async function startAddingProxy(target: string): Promise<AddingProxy> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body === undefined ? {} : { body }) })
        .then(async (answer) => {
          let content = Buffer.from(await answer.arrayBuffer());
          const type = answer.headers.get('content-type') ?? '';
          if (/^application\/(problem\+)?json/.test(type) && content.length > 0) {
            content = Buffer.from(JSON.stringify(withAddedMember(JSON.parse(content.toString('utf8')))));
          }
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) out[name] = value;
          });
          response.writeHead(answer.status, out).end(content);
        })
        .catch((error: unknown) => response.writeHead(502).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
