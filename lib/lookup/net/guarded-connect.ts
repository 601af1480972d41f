import { DossierError, isDossierError } from '../../errors.js';
import { abortError, onAbort } from './abort.js';
import type { HostPort } from './host-port.js';
import { resolvePeer, type Reach } from './reach.js';

/** Where {@link guardedConnect} connects. */
export interface ConnectTarget extends HostPort {
  /** True for a server the operator configured: its address is not held to the public-address rule. */
  trusted: boolean;
}

/** A connection {@link guardedConnect} can watch and close: a socket, a TLS socket, an HTTP request. */
export interface Connection {
  destroy(): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/** How a conversation ends: the first call wins, later ones are ignored. */
export interface Outcome<T> {
  resolve(value: T): void;
  /** A `DossierError` is passed on as it is; any other error is worded by {@link connectionError}. */
  reject(error: unknown): void;
}

/**
 * Connects to `target` the one way lookups connect: its host resolved once through Dossier's resolver
 * and checked ({@link resolvePeer}: no second resolution, so no DNS-rebinding gap), the connection
 * opened by `open` to exactly that address, then one conversation held to `reach.signal`: the first
 * outcome wins, and the connection is destroyed as soon as there is one, so no socket outlives its
 * answer. `reach.signal` aborting ends it with {@link abortError}; an `error` event with {@link connectionError}.
 * @param describe names the peer in messages, given the address connected to; `talk` is given that name.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT` (or
 *   the signal's reason), or what `talk` rejects with.
 */
export async function guardedConnect<C extends Connection, T>(
  target: ConnectTarget,
  reach: Reach,
  describe: (address: string) => string,
  open: (address: string) => C,
  talk: (connection: C, outcome: Outcome<T>, what: string) => void,
): Promise<T> {
  const address = await resolvePeer(target.host, reach, target.trusted);
  const { signal } = reach;
  const what = describe(address);
  if (signal.aborted) throw abortError(signal, what);
  return new Promise<T>((resolve, reject) => {
    let connection: C | undefined;
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      stopListening();
      connection?.destroy();
      settle();
    };
    const outcome: Outcome<T> = {
      resolve: (value) => finish(() => resolve(value)),
      reject: (error) => finish(() => reject(isDossierError(error) ? error : connectionError(error, what))),
    };
    const stopListening = onAbort(signal, () => outcome.reject(abortError(signal, what)));
    connection = open(address);
    // `on`, not `once`: a connection may report a second error while it is torn down, and an error
    // with no listener would crash the process.
    connection.on('error', (error) => outcome.reject(error));
    talk(connection, outcome, what);
  });
}

/**
 * What a failed connection means, in the words of the lookup's answer: `ERR_UPSTREAM_TIMEOUT` for a
 * connection that timed out, else `ERR_UPSTREAM_FAILED` saying what happened.
 */
export function connectionError(error: unknown, what: string): DossierError {
  const code = (error as { code?: unknown } | null)?.code;
  const text = typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  if (code === 'ETIMEDOUT') return new DossierError('ERR_UPSTREAM_TIMEOUT', `${what} did not answer in time.`, { cause: error });
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection'
      : code === 'ECONNRESET'
        ? 'reset the connection'
        : code === 'ERR_STREAM_PREMATURE_CLOSE'
          ? 'broke off its answer'
          : typeof code === 'string' && code.startsWith('ERR_SSL_')
            ? 'does not speak TLS as expected'
            : 'failed';
  return new DossierError('ERR_UPSTREAM_FAILED', `${what} ${why} (${text}).`, { cause: error });
}
