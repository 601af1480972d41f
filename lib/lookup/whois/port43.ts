import { connect } from 'node:net';
import { DossierError } from '../../errors.js';
import { abortError, onAbort } from './upstream.js';

/** One question of {@link queryPort43}. */
export interface Port43Query {
  /** The checked address to connect to. */
  address: string;
  port: number;
  /** The server's name, for messages. */
  server: string;
  /** What to ask (a domain or a TLD); CR LF is added. */
  query: string;
  /** The most bytes read; a longer answer fails the query. */
  maxBytes: number;
  /** Stops the query and destroys the socket at once. */
  signal: AbortSignal;
}

/**
 * Asks a whois server (RFC 3912): connect, send the query and CR LF, read until the server closes.
 * whoiser's own `query()` cannot do this safely (it resolves the name itself, reads without limit and
 * cannot be aborted), hence this client.
 * @throws DossierError `ERR_UPSTREAM_FAILED` (refused, reset, an empty answer, more than `maxBytes`);
 *   `ERR_UPSTREAM_TIMEOUT` or the signal's reason when it aborts.
 */
export function queryPort43({ address, port, server, query, maxBytes, signal }: Port43Query): Promise<string> {
  if (signal.aborted) return Promise.reject(abortError(signal, `The whois server ${server}`));
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: DossierError | null): void => {
      if (settled) return;
      settled = true;
      stopListening();
      socket.destroy();
      if (error) {
        reject(error);
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') reject(new DossierError('ERR_UPSTREAM_FAILED', `The whois server ${server} sent an empty answer.`));
      else resolve(text);
    };
    const stopListening = onAbort(signal, () => finish(abortError(signal, `The whois server ${server}`)));
    socket.on('connect', () => socket.write(`${query}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        finish(
          new DossierError('ERR_UPSTREAM_FAILED', `The whois server ${server} sent more than ${maxBytes} bytes; it was cut off.`),
        );
      } else {
        chunks.push(chunk);
      }
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      finish(
        new DossierError('ERR_UPSTREAM_FAILED', `The whois server ${server} failed (${cause.code ?? cause.message}).`, { cause }),
      );
    });
  });
}
