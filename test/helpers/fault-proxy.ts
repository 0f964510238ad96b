import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with a request whose first line (`GET /bucket/key?… HTTP/1.1`) matches its fault:
 * `hang` accepts it and never answers; `stall` forwards it and the first `afterBytes` of the answer, then sends
 * nothing more and keeps the connection open; `cut` closes the connection as the request arrives; `trickle`
 * forwards the first `afterBytes` of the answer, then one byte every `everyMs` (a store slow but never silent for
 * long); `garbage` answers `text` (no HTTP) and closes the connection.
 */
export type Fault =
  | { kind: 'hang' }
  | { kind: 'stall'; afterBytes: number }
  | { kind: 'cut' }
  | { kind: 'trickle'; afterBytes: number; everyMs: number }
  | { kind: 'garbage'; text: string };

/** A TCP proxy in front of an HTTP server (s3rver) that hangs, stalls or cuts the requests it is told to. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>` of the proxy. */
  readonly endpoint: string;
  readonly port: number;
  /** Requests seen, by their first line. */
  readonly requests: string[];
  /** Requests a fault was applied to. */
  readonly faulted: string[];
  /** Applies `fault` to requests whose first line matches `match` from now on (replacing the fault before). */
  inject(fault: Fault, match?: RegExp): void;
  /** Passes every request from now on; connections held by a fault stay as they are (the client's time limits end them). */
  heal(): void;
  /** Connections open now (held by a fault or passing). */
  readonly openConnections: number;
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port in front of `target` (`http://127.0.0.1:<port>`). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let fault: { fault: Fault; match: RegExp } | null = null;
  const requests: string[] = [];
  const faulted: string[] = [];
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => {});
    let server: net.Socket | null = null;
    /** The fault of the request the connection carries now, null while it passes. */
    let current: Fault | null = null;
    let answered = 0;
    /** Bytes of a trickled answer not sent yet, and the timer that sends them. */
    let trickled: Buffer[] = [];
    let trickleTimer: NodeJS.Timeout | undefined;
    const trickle = (everyMs: number): void => {
      trickleTimer ??= setInterval(() => {
        const head = trickled[0];
        if (head === undefined) return;
        client.write(head.subarray(0, 1));
        if (head.length > 1) trickled[0] = head.subarray(1);
        else trickled.shift();
      }, everyMs);
    };
    client.once('close', () => clearInterval(trickleTimer));
    const connectUpstream = (): net.Socket => {
      const s = net.connect(Number(upstream.port), upstream.hostname);
      sockets.add(s);
      s.once('close', () => {
        sockets.delete(s);
        if (current?.kind !== 'stall' && current?.kind !== 'trickle') client.destroy();
      });
      s.on('error', () => client.destroy());
      s.on('data', (chunk: Buffer) => {
        if (current?.kind === 'stall') {
          const left = current.afterBytes - answered;
          if (left > 0) client.write(chunk.subarray(0, left));
          answered += chunk.length;
          return;
        }
        if (current?.kind === 'trickle') {
          const left = Math.max(0, current.afterBytes - answered);
          if (left > 0) client.write(chunk.subarray(0, left));
          if (chunk.length > left) trickled.push(chunk.subarray(left));
          answered += chunk.length;
          trickle(current.everyMs);
          return;
        }
        answered += chunk.length;
        client.write(chunk);
      });
      return s;
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      const firstLine = /^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.exec(text)?.[0].trim();
      if (firstLine !== undefined) {
        requests.push(firstLine);
        answered = 0;
        current = fault !== null && fault.match.test(firstLine) ? fault.fault : null;
        if (current !== null) faulted.push(firstLine);
      }
      if (current?.kind === 'hang') return;
      if (current?.kind === 'garbage') {
        client.end(current.text);
        return;
      }
      if (current?.kind === 'cut') {
        client.destroy();
        server?.destroy();
        return;
      }
      server ??= connectUpstream();
      server.write(chunk);
    });
    client.once('close', () => server?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    requests,
    faulted,
    inject(next, match = /./) {
      fault = { fault: next, match };
    },
    heal() {
      fault = null;
    },
    get openConnections() {
      return sockets.size;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
