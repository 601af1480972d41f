import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';

/**
 * Makes the HTTP server answer requests it cannot even parse (an unknown method token, headers or a URL
 * too large, malformed syntax) with a JSON body too, instead of Node's empty answer: every answer of
 * Dossier is JSON (CONTRACT.md §1). Koa never sees these requests.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ status: 'error', code: 'bad_request', message: 'The request could not be read.' });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
