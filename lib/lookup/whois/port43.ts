import { connect, type Socket } from 'node:net';
import { DossierError } from '../../errors.js';
import { readCapped } from '../net/capped-read.js';
import { guardedConnect, type ConnectTarget } from '../net/guarded-connect.js';
import type { Reach } from '../net/reach.js';

/** One question of {@link queryPort43}. */
export interface Port43Query {
  /** The whois server, and whether the operator configured it. */
  server: ConnectTarget;
  /** What to ask (a domain or a TLD); CR LF is added. */
  query: string;
  /** The most bytes read; a longer answer fails the query. */
  maxBytes: number;
  /** Resolver, rules, and the signal that stops the query and destroys the socket at once. */
  reach: Reach;
}

/**
 * Asks a whois server (RFC 3912) over a guarded connection: connect, send the query and CR LF, read
 * until the server closes. whoiser's own `query()` cannot do this safely (it resolves the name itself,
 * reads without limit and cannot be aborted), hence this client. The answer is given as bytes: registries
 * answer in their own charsets (see `decodeWhoisAnswer`).
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`; `ERR_UPSTREAM_FAILED` (refused, reset, an
 *   empty answer, more than `maxBytes`); `ERR_UPSTREAM_TIMEOUT` or the signal's reason when it aborts.
 */
export function queryPort43({ server, query, maxBytes, reach }: Port43Query): Promise<Buffer> {
  const what = `The whois server ${server.host}`;
  return guardedConnect<Socket, Buffer>(
    server,
    reach,
    () => what,
    (address) => connect({ host: address, port: server.port }),
    (socket, outcome) => {
      socket.on('connect', () => socket.write(`${query}\r\n`));
      const tooLong = (): DossierError =>
        new DossierError('ERR_UPSTREAM_FAILED', `${what} sent more than ${maxBytes} bytes; it was cut off.`);
      readCapped(socket, { maxBytes, tooLong }).then((body) => {
        if (body.toString('latin1').trim() === '')
          outcome.reject(new DossierError('ERR_UPSTREAM_FAILED', `${what} sent an empty answer.`));
        else outcome.resolve(body);
      }, outcome.reject);
    },
  );
}
