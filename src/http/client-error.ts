import type { Duplex } from 'node:stream';
import { Problem } from '../common/problems.js';

/** Node's default limit on the request line and headers together (`--max-http-header-size`), in bytes. */
export const HEADER_LIMIT_BYTES = 16 * 1024;

/**
 * Answers a request Node's parser refused before the app saw it, as Node itself does (a status line and
 * `Connection: close`), except that a request line and headers over the limit (431) get a problem body the contract
 * declares. The only answers written to the socket directly: no Koa context exists for such a request, so the
 * request's pass and its error path never see it.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const sent = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (socket.writable && !sent) {
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      const body = JSON.stringify(new Problem('request-header-fields-too-large', `the request line and headers exceed ${HEADER_LIMIT_BYTES} bytes`).toBody());
      socket.write(`HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    } else {
      const line = err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? '413 Payload Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      socket.write(`HTTP/1.1 ${line}\r\nConnection: close\r\n\r\n`);
    }
  }
  socket.destroy(err);
}
