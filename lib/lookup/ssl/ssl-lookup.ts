import { checkServerIdentity, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { DossierError } from '../../errors.js';
import type { Lookup, SslData } from '../../ports/lookup-service.js';
import { parseDomainName } from '../net/domain-name.js';
import type { LookupContext } from '../net/lookup-context.js';
import { withOwnResolver } from '../net/reach.js';
import { daysRemaining, describeCertificate, describeChainCertificate, validityOf } from './describe-certificate.js';
import { tlsHandshake, type TlsHandshake } from './tls-handshake.js';

/** Settings of {@link SslLookup}. */
export interface SslLookupOptions {
  /** The port the handshake is made on (`DOSSIER_SSL_PORT`). @default 443 */
  port: number;
  /**
   * Extra trusted CA certificates (PEM), added to Node's own trust store, for private PKIs and tests
   * (`DOSSIER_SSL_CA_FILE`). @default []
   */
  caCertificates?: string[];
}

/** How long an SSL answer is cached at most; never past the leaf's expiry (nor its start, when still ahead). */
export const SSL_CACHE_SECONDS = 3600;

/** Node's code for a certificate that does not name the host (what `tls.checkServerIdentity` reports). */
const NAME_MISMATCH = 'ERR_TLS_CERT_ALTNAME_INVALID';

/**
 * `GET /api/ssl`: one TLS handshake with the domain on `options.port`, with SNI, at the address Dossier's own
 * resolver gave and the target guard allowed (no second resolution, so no DNS-rebinding gap). The peer is
 * never refused for an untrusted certificate: the verdict is reported in `isValid` and
 * `authorizationError`.
 *
 * `chain` is the certificate path Node reports: the certificates the peer sent, leaf first, each
 * followed by its issuer; when the peer leaves out the root and the trust store holds it, the root ends
 * the path. `authorizationError` is Node's code: the chain's problem (`CERT_HAS_EXPIRED`,
 * `SELF_SIGNED_CERT_IN_CHAIN`, `DEPTH_ZERO_SELF_SIGNED_CERT`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, …) when
 * it has one, else `ERR_TLS_CERT_ALTNAME_INVALID` when the certificate does not name the domain; null
 * when `isValid`. Every certificate of `chain` has its `daysRemaining` by Dossier's clock, and
 * `expiresFirst` names the one that ends first (an intermediate may end before the leaf).
 */
export class SslLookup implements Lookup<'ssl'> {
  readonly kind = 'ssl' as const;

  private readonly secureContext: SecureContext;

  /** @param context resolver, guard and clock. */
  constructor(
    private readonly context: Pick<LookupContext, 'createResolver' | 'guard' | 'clock'>,
    private readonly options: SslLookupOptions,
  ) {
    this.secureContext = createTrustContext(options.caCertificates ?? []);
  }

  parse(input: unknown): string {
    return parseDomainName(input);
  }

  async run(domain: string, signal: AbortSignal): Promise<{ data: SslData; ttlSeconds: number }> {
    const { createResolver, guard, clock } = this.context;
    const handshake = await withOwnResolver(createResolver, signal, (resolver) =>
      tlsHandshake({
        servername: domain,
        port: this.options.port,
        secureContext: this.secureContext,
        reach: { resolver, guard, signal },
      }),
    );
    return describeSession(domain, handshake, clock.now());
  }
}

/**
 * Turns a handshake into {@link SslData} as of `now` (ms since the epoch), with how long it may be
 * cached.
 * @throws DossierError `ERR_UPSTREAM_FAILED` when the leaf cannot be read.
 */
export function describeSession(domain: string, handshake: TlsHandshake, now: number): { data: SslData; ttlSeconds: number } {
  const [leaf] = handshake.certificates;
  if (leaf === undefined) throw new DossierError('ERR_UPSTREAM_FAILED', `${domain} sent no certificate.`);
  let fields: ReturnType<typeof describeCertificate>;
  let chain: SslData['chain'];
  let validity: ReturnType<typeof validityOf>;
  try {
    fields = describeCertificate(leaf);
    validity = validityOf(leaf);
    chain = handshake.certificates.map((certificate) => describeChainCertificate(certificate, now));
  } catch (error) {
    throw new DossierError('ERR_UPSTREAM_FAILED', `The certificate of ${domain} could not be read.`, { cause: error });
  }
  const hostnameMatches = checkServerIdentity(domain, leaf.toLegacyObject()) === undefined;
  const inWindow = now >= validity.notBefore && now <= validity.notAfter;
  const isValid = handshake.authorized && hostnameMatches && inWindow;
  const data: SslData = {
    domain,
    subject: fields.subject,
    issuer: fields.issuer,
    validFrom: fields.validFrom,
    validTo: fields.validTo,
    daysRemaining: daysRemaining(validity.notAfter, now),
    isValid,
    authorizationError: isValid ? null : authorizationError(handshake, hostnameMatches, now, validity.notBefore),
    hostnameMatches,
    subjectAltNames: fields.subjectAltNames,
    serialNumber: fields.serialNumber,
    fingerprintSha256: fields.fingerprintSha256,
    signatureAlgorithm: fields.signatureAlgorithm,
    publicKey: fields.publicKey,
    protocol: handshake.protocol,
    cipher: handshake.cipher,
    chain,
    expiresFirst: expiresFirst(chain),
  };
  return { data, ttlSeconds: cacheSeconds(validity, now) };
}

/** The certificate of `chain` (never empty: the leaf leads it) whose end comes first; the earlier one on a tie. */
function expiresFirst(chain: SslData['chain']): SslData['expiresFirst'] {
  const first = chain.reduce((soonest, entry) => (Date.parse(entry.validTo) < Date.parse(soonest.validTo) ? entry : soonest));
  return { subject: first.subject, validTo: first.validTo, daysRemaining: first.daysRemaining };
}

/** Node's verdict; when Node saw no fault but Dossier's clock does (clock skew, a test clock), the date's. */
function authorizationError(handshake: TlsHandshake, hostnameMatches: boolean, now: number, notBefore: number): string {
  if (handshake.authorizationError !== null) return handshake.authorizationError;
  if (!hostnameMatches) return NAME_MISMATCH;
  return now < notBefore ? 'CERT_NOT_YET_VALID' : 'CERT_HAS_EXPIRED';
}

function cacheSeconds(validity: { notBefore: number; notAfter: number }, now: number): number {
  const limits = [SSL_CACHE_SECONDS, Math.floor((validity.notAfter - now) / 1000)];
  if (validity.notBefore > now) limits.push(Math.floor((validity.notBefore - now) / 1000));
  return Math.max(0, Math.min(...limits));
}

/** The TLS trust of Dossier's connections: Node's roots, and the extra CA certificates given (`sslCaCertificates`). */
export function createTrustContext(extra: string[]): SecureContext {
  if (extra.length === 0) return createSecureContext();
  // A `ca` list replaces Node's store, so Node's own roots go first.
  return createSecureContext({ ca: [...rootCertificates, ...extra] });
}
