import { X509Certificate } from 'node:crypto';
import { connect, type DetailedPeerCertificate, type SecureContext } from 'node:tls';
import { DossierError } from '../../errors.js';

/** The most chain certificates read from one peer (Node's chain walk is bounded too; this is a guard). */
const MAX_CHAIN_LENGTH = 16;

/** Where and how {@link tlsHandshake} connects. */
export interface TlsHandshakeOptions {
  /** The IP address to connect to, already checked: no name is resolved here. */
  address: string;
  port: number;
  /** Sent as SNI and checked against the certificate. */
  servername: string;
  /** The trust store (and other client settings) shared by every handshake. */
  secureContext: SecureContext;
  /** Aborting closes the socket at once. */
  signal: AbortSignal;
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
 * Makes one TLS handshake with `address:port` and closes the connection as soon as the certificates,
 * protocol, cipher and verdict are read. The peer is not refused when it is not trusted: the verdict is
 * reported. Nothing past the handshake is read; how much of a handshake is read is bounded by OpenSSL
 * (a handshake message over its limit, more than a few empty records or warning alerts, a record that
 * is not TLS: each fails the handshake at once), and how long it may take by `signal`.
 * @throws DossierError `ERR_UPSTREAM_FAILED` when the connection is refused or reset, the peer does not
 *   speak TLS or sends no certificate; `ERR_UPSTREAM_TIMEOUT` (or the signal's reason) when aborted.
 */
export function tlsHandshake(options: TlsHandshakeOptions): Promise<TlsHandshake> {
  const { address, port, servername, secureContext, signal } = options;
  const where = `${servername} (${address.includes(':') ? `[${address}]` : address}:${port})`;
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal, where));
      return;
    }
    const socket = connect({ host: address, port, servername, secureContext, rejectUnauthorized: false });
    let settled = false;
    const finish = (outcome: () => void): void => {
      socket.destroy();
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = (): void => finish(() => reject(abortReason(signal, where)));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => {
      let result: TlsHandshake;
      try {
        result = readSession(socket, where);
      } catch (error) {
        finish(() => reject(error));
        return;
      }
      finish(() => resolve(result));
    });
    // `on`, not `once`: a socket may report a second error while it is torn down, and an error with
    // no listener would crash the process.
    socket.on('error', (error: NodeJS.ErrnoException) => finish(() => reject(handshakeError(error, where))));
    socket.once('close', () =>
      finish(() => reject(new DossierError('ERR_UPSTREAM_FAILED', `${where} closed the connection during the TLS handshake.`))),
    );
  });
}

function readSession(socket: ReturnType<typeof connect>, where: string): TlsHandshake {
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

function handshakeError(error: NodeJS.ErrnoException, where: string): DossierError {
  const code = error.code ?? 'error';
  if (code === 'ETIMEDOUT') {
    return new DossierError('ERR_UPSTREAM_TIMEOUT', `${where} did not answer in time.`, { cause: error });
  }
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection'
      : code === 'ECONNRESET'
        ? 'reset the connection'
        : code.startsWith('ERR_SSL_')
          ? 'does not speak TLS as expected'
          : 'could not be reached';
  return new DossierError('ERR_UPSTREAM_FAILED', `${where} ${why} (${code}).`, { cause: error });
}

function abortReason(signal: AbortSignal, where: string): DossierError {
  const reason: unknown = signal.reason;
  if (reason instanceof DossierError) return reason;
  return new DossierError('ERR_UPSTREAM_TIMEOUT', `The TLS handshake with ${where} did not finish in time.`, { cause: reason });
}
