import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { SecureContext } from 'node:tls';
import { guardedConnect, type Outcome } from './guarded-connect.js';
import type { Reach } from './reach.js';

/** One request of {@link guardedHttpRequest}. */
export interface GuardedHttpRequest {
  /** An `http:` or `https:` URL. */
  url: URL;
  /** The port to connect to, already checked by the caller. */
  port: number;
  /** True for a server the operator configured: its address is not held to the public-address rule. */
  trusted: boolean;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
  /** Resolver, address rules and the signal that ends the request. */
  reach: Reach;
  /** Whom an `https` server's certificate must chain to. @default Node's roots */
  secureContext?: SecureContext;
  /** Names the server in messages. */
  name: string;
}

/**
 * Sends one HTTP(S) request the way lookups connect ({@link guardedConnect}): the URL's host resolved once
 * through Dossier's resolver and checked, the socket opened to exactly that address, with the host name
 * kept for `Host` and SNI. `read` is given the answer and settles the outcome; nothing follows a redirect.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`, or what `read` rejects with.
 */
export function guardedHttpRequest<T>(
  { url, port, trusted, method, headers, body, reach, secureContext, name }: GuardedHttpRequest,
  read: (answer: IncomingMessage, outcome: Outcome<T>) => void,
): Promise<T> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const client = url.protocol === 'https:' ? https : http;
  return guardedConnect<ClientRequest, T>(
    { host: hostname, port, trusted },
    reach,
    () => name,
    (address) =>
      client.request({
        protocol: url.protocol,
        hostname,
        port,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        agent: false,
        lookup: pinnedLookup(address),
        servername: isIP(hostname) === 0 ? hostname : undefined,
        ...(secureContext === undefined ? {} : { secureContext }),
      }),
    (request, outcome) => {
      request.on('response', (answer) => read(answer, outcome));
      request.end(body);
    },
  );
}

/** A `lookup` that answers with the checked address only: Node asks it instead of resolving the name again. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}
