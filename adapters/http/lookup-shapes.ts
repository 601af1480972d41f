import type { IpData as Ip, LookupKind, SslData as Ssl, WhoisData as Whois } from '../../lib/index.js';
import type { IpData, SslData, WhoisData } from './schemas/shapes.js';

// Interface A's records on the wire (docs/contract.md §2): the one place where a lookup's answer becomes its
// wire shape (snake_case, in the order of its schema in schemas/shapes.ts), for a lookup, a batch item
// and its streamed line alike. Each is a plain object literal: a cached answer is put on the wire on
// every request, and this is on that path.

/** A whois answer as `GET /api/whois` sends it. */
export function wireWhois(data: Whois): WhoisData {
  return {
    domain: data.domain,
    registered: data.registered,
    registrar: data.registrar,
    registrar_url: data.registrarUrl,
    registrar_iana_id: data.registrarIanaId,
    registrar_abuse_email: data.registrarAbuseEmail,
    registrant: { organization: data.registrant.organization, country_code: data.registrant.countryCode },
    created_at: data.createdAt,
    updated_at: data.updatedAt,
    expires_at: data.expiresAt,
    name_servers: data.nameServers,
    status: data.status,
    dnssec: data.dnssec,
    whois_server: data.whoisServer,
    source: data.source,
    raw: data.raw,
  };
}

/** An IP answer as `GET /api/ip` sends it. */
export function wireIp(data: Ip): IpData {
  return {
    ip: data.ip,
    version: data.version,
    hostname: data.hostname,
    is_private: data.isPrivate,
    city: data.city,
    region: data.region,
    region_code: data.regionCode,
    country: data.country,
    country_code: data.countryCode,
    continent: data.continent,
    continent_code: data.continentCode,
    postal_code: data.postalCode,
    latitude: data.latitude,
    longitude: data.longitude,
    accuracy_radius: data.accuracyRadius,
    timezone: data.timezone,
    asn: data.asn,
    organization: data.organization,
    isp: data.isp,
    network: data.network,
  };
}

/** One certificate of an SSL answer's chain on the wire. */
function wireChainCertificate(certificate: Ssl['chain'][number]): SslData['chain'][number] {
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    valid_from: certificate.validFrom,
    valid_to: certificate.validTo,
    fingerprint_sha256: certificate.fingerprintSha256,
    days_remaining: certificate.daysRemaining,
  };
}

/** An SSL answer as `GET /api/ssl` sends it. */
export function wireSsl(data: Ssl): SslData {
  return {
    domain: data.domain,
    subject: data.subject,
    issuer: data.issuer,
    valid_from: data.validFrom,
    valid_to: data.validTo,
    days_remaining: data.daysRemaining,
    is_valid: data.isValid,
    authorization_error: data.authorizationError,
    hostname_matches: data.hostnameMatches,
    subject_alt_names: data.subjectAltNames,
    serial_number: data.serialNumber,
    fingerprint_sha256: data.fingerprintSha256,
    signature_algorithm: data.signatureAlgorithm,
    public_key: data.publicKey,
    protocol: data.protocol,
    cipher: data.cipher,
    chain: data.chain.map(wireChainCertificate),
    expires_first: {
      subject: data.expiresFirst.subject,
      valid_to: data.expiresFirst.validTo,
      days_remaining: data.expiresFirst.daysRemaining,
    },
  };
}

/**
 * A lookup's answer of `kind` (as the lookup service gives it for that kind) as interface A sends it. A
 * DNS answer's names are already the wire's.
 */
export function wireLookup(kind: LookupKind, data: unknown): unknown {
  switch (kind) {
    case 'dns':
      return data;
    case 'whois':
      return wireWhois(data as Whois);
    case 'ip':
      return wireIp(data as Ip);
    case 'ssl':
      return wireSsl(data as Ssl);
  }
}
