import { X509Certificate } from 'node:crypto';
import { connect, type DetailedPeerCertificate, type SecureContext, type TLSSocket } from 'node:tls';
import { DossierError } from '../../errors.js';
import { guardedConnect } from '../net/guarded-connect.js';
import { formatHostPort } from '../net/host-port.js';
import type { Reach } from '../net/reach.js';

/** The most chain certificates read from one peer (Node's chain walk is bounded too; this is a guard). */
const MAX_CHAIN_LENGTH = 16;

/** Where and how {@link tlsHandshake} connects. */
export interface TlsHandshakeOptions {
  /** The domain: resolved through the guard, sent as SNI and checked against the certificate. */
  servername: string;
  port: number;
  /** The trust store (and other client settings) shared by every handshake. */
  secureContext: SecureContext;
  /** Resolver, rules, and the signal whose abort closes the socket at once. */
  reach: Reach;
}

/** What one handshake learned. */
export interface TlsHandshake {
  /** The certificate path Node reports, leaf first (see `SslLookup`). */
  certificates: X509Certificate[];
  /** `TLSv1.3`, `TLSv1.2`, … */
  protocol: string | null;
  /** The IANA/RFC name of the cipher suite (`TLS_AES_256_GCM_SHA384`). */
  cipher: string | null;
  /** Whether the chain is trusted and names `servername`. */
  authorized: boolean;
  /** Why not: Node's code (`SELF_SIGNED_CERT_IN_CHAIN`, `CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`, …). */
  authorizationError: string | null;
}

/**
 * Makes one TLS handshake with `servername` on `port`, over a guarded connection (the name resolved
 * once and checked, then exactly that address connected to), and closes the connection as soon as
 * the certificates, protocol, cipher and verdict are read. The peer is not refused when it is not
 * trusted: the verdict is reported. Nothing past the handshake is read; how much of a handshake is
 * read is bounded by OpenSSL (a handshake message over its limit, more than a few empty records or
 * warning alerts, a record that is not TLS: each fails the handshake at once), and how long it may
 * take by `reach.signal`.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED` for a non-public address; `ERR_UPSTREAM_FAILED`
 *   when the name has no address, the connection is refused or reset, the peer does not speak TLS or
 *   sends no certificate; `ERR_UPSTREAM_TIMEOUT` (or the signal's reason) when aborted.
 */
export function tlsHandshake({ port, servername, secureContext, reach }: TlsHandshakeOptions): Promise<TlsHandshake> {
  return guardedConnect<TLSSocket, TlsHandshake>(
    { host: servername, port, trusted: false },
    reach,
    (address) => `${servername} (${formatHostPort(address, port)})`,
    (address) => connect({ host: address, port, servername, secureContext, rejectUnauthorized: false }),
    (socket, outcome, where) => {
      socket.once('secureConnect', () => {
        try {
          outcome.resolve(readSession(socket, where));
        } catch (error) {
          outcome.reject(error);
        }
      });
      socket.once('close', () =>
        outcome.reject(new DossierError('ERR_UPSTREAM_FAILED', `${where} closed the connection during the TLS handshake.`)),
      );
    },
  );
}

function readSession(socket: TLSSocket, where: string): TlsHandshake {
  const certificates: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  let node: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  // Node links each certificate to its issuer; a self-signed one links to itself.
  while (node?.raw !== undefined && !seen.has(node) && certificates.length < MAX_CHAIN_LENGTH) {
    seen.add(node);
    certificates.push(new X509Certificate(node.raw));
    node = node.issuerCertificate;
  }
  if (certificates.length === 0) throw new DossierError('ERR_UPSTREAM_FAILED', `${where} sent no certificate.`);
  const authorizationError = socket.authorizationError as unknown;
  return {
    certificates,
    protocol: socket.getProtocol() ?? null,
    cipher: socket.getCipher()?.standardName ?? null,
    authorized: socket.authorized,
    authorizationError:
      authorizationError instanceof Error
        ? authorizationError.message
        : authorizationError == null
          ? null
          : String(authorizationError),
  };
}
