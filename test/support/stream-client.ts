import { connect } from 'node:net';

/**
 * Starts a streamed create (`Accept: text/event-stream`) on `url` (with the mount's prefix) and destroys
 * the connection once the answer's head has come (`head`), once its first `delta` event has (`delta`),
 * or once the whole `document` event has (`document`: a client that closes as soon as it has what it
 * came for, as a page that opens the document does). Resolves when the socket is closed, with whether
 * the `document` event had come by then (a client slower than the server may read the whole stream at once).
 */
export function leaveStream(url: string, key: string, when: 'head' | 'delta' | 'document', name: string): Promise<boolean> {
  const { hostname, port, pathname } = new URL(url);
  const prefix = pathname.replace(/\/+$/, '');
  const body = JSON.stringify({ name, prompt: 'a walk in the forest' });
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.write(
    `POST ${prefix}/api/v1/documents HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  let seen = '';
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.toString('utf8');
    const left = {
      head: () => seen.includes('\r\n\r\n'),
      delta: () => seen.includes('event: delta'),
      document: () => /event: document\ndata: .*\n\n/.test(seen),
    }[when];
    if (left()) socket.destroy();
  });
  return new Promise((resolve) => socket.once('close', () => resolve(seen.includes('event: document'))));
}
