import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { isDocumentPath } from './error-middleware.js';

/**
 * Makes the HTTP server answer in JSON what Node would otherwise answer itself, with an empty body:
 * every answer of Dossier is JSON (CONTRACT.md §1). A request it cannot even parse (an unknown method
 * token, headers or a URL too large, malformed syntax) gets the error body of its interface, read from
 * its request line; Koa never sees it. An HTTP/1.1 request without `Host` goes on to Koa, which needs
 * no Host to answer (document links are then relative).
 */
export function answerClientErrorsWithJson(server: Server): void {
  // The `requireHostHeader` option of `http.createServer`, which the server reads at each request.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const message = 'The request could not be read.';
    const target = /^[!-~]+ ([!-~]+)/.exec(error.rawPacket?.toString('latin1', 0, 2048) ?? '')?.[1] ?? '';
    const path = target.split('?', 1)[0]!;
    const body = JSON.stringify(isDocumentPath(path) ? { message, status } : { status: 'error', code: 'bad_request', message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
