import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { isDocumentPath } from './errors.js';

/**
 * Answers in JSON a request that Node's HTTP parser could not even read (an unknown method token,
 * headers or a URL too large, malformed syntax), instead of Node's empty answer: with the error body
 * of its interface, read from its request line, 431 for headers too large, else 400. A socket already
 * gone is destroyed. The `clientError` listener of a Node server, or Fastify's `clientErrorHandler`.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = 'The request could not be read.';
  const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 2048) : '';
  const target = /^[!-~]+ ([!-~]+)/.exec(packet)?.[1] ?? '';
  const path = target.split('?', 1)[0]!;
  const body = JSON.stringify(isDocumentPath(path) ? { message, status } : { status: 'error', code: 'bad_request', message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Makes a Node HTTP server answer in JSON what Node would otherwise answer itself, with an empty body:
 * every answer of Dossier is JSON (docs/contract.md §1). See {@link answerClientError}; a server that already
 * has a `clientError` listener keeps it (Fastify's `clientErrorHandler`, which can be answerClientError).
 * An HTTP/1.1 request without `Host` goes on to the app, which needs no Host to answer (document links
 * are then relative).
 */
export function answerClientErrorsWithJson(server: Server): void {
  // The `requireHostHeader` option of `http.createServer`, which the server reads at each request.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  if (server.listenerCount('clientError') === 0) server.on('clientError', answerClientError);
}
