import type { X509Certificate } from 'node:crypto';
import type { ChainCertificate, DistinguishedName, SslData } from '../../ports/lookup-service.js';
import { canonicalIpText } from '../net/ip-address.js';
import { signatureAlgorithmOf } from './signature-algorithm.js';

/** Public-key type names, by `KeyObject.asymmetricKeyType`. */
const KEY_TYPES: Readonly<Record<string, string>> = {
  rsa: 'RSA',
  'rsa-pss': 'RSA-PSS',
  dsa: 'DSA',
  ec: 'EC',
  ed25519: 'Ed25519',
  ed448: 'Ed448',
};

const DAY_MS = 86_400_000;

/** Key sizes of the key types whose size is fixed (OpenSSL reports these for `EVP_PKEY_bits`). */
const FIXED_KEY_BITS: Readonly<Record<string, number>> = { ed25519: 256, ed448: 456 };

/** The certificate fields of {@link SslData}: everything but what the TLS session itself says. */
export type CertificateFields = Pick<
  SslData,
  | 'subject'
  | 'issuer'
  | 'validFrom'
  | 'validTo'
  | 'subjectAltNames'
  | 'serialNumber'
  | 'fingerprintSha256'
  | 'signatureAlgorithm'
  | 'publicKey'
>;

/** The validity window of a certificate, in milliseconds since the epoch. */
export interface Validity {
  notBefore: number;
  notAfter: number;
}

/**
 * What a certificate says, in the shape of {@link SslData}: subject and issuer by short attribute names,
 * validity in ISO 8601 UTC, DNS names and IP addresses of the subject alternative names, serial number in
 * upper-case hex, the SHA-256 fingerprint as colon-separated upper-case hex, the signature algorithm by
 * OpenSSL's name, and the public key's type, size in bits and curve (OpenSSL's name, `prime256v1`).
 * @throws Error when a validity date cannot be read (OpenSSL accepted the certificate, so it can).
 */
export function describeCertificate(certificate: X509Certificate): CertificateFields {
  return {
    ...describeCore(certificate),
    subjectAltNames: subjectAltNames(certificate.subjectAltName),
    serialNumber: certificate.serialNumber.toUpperCase(),
    signatureAlgorithm: signatureAlgorithmOf(certificate.raw),
    publicKey: publicKeyOf(certificate, certificate.toLegacyObject().bits),
  };
}

/** The fields every certificate is described by: who, issued by whom, valid when, and its fingerprint. */
type CoreFields = Omit<ChainCertificate, 'daysRemaining'>;

/**
 * One entry of `chain`: who, issued by whom, valid when, its fingerprint, and how many whole days it
 * has left as of `now` (ms since the epoch).
 * @throws Error when a validity date cannot be read.
 */
export function describeChainCertificate(certificate: X509Certificate, now: number): ChainCertificate {
  return { ...describeCore(certificate), daysRemaining: daysRemaining(validityOf(certificate).notAfter, now) };
}

/** Whole days from `now` until `notAfter` (both ms since the epoch), rounded down: negative once it has passed. */
export function daysRemaining(notAfter: number, now: number): number {
  return Math.floor((notAfter - now) / DAY_MS);
}

function describeCore(certificate: X509Certificate): CoreFields {
  const legacy = certificate.toLegacyObject();
  const { notBefore, notAfter } = validityOf(certificate);
  return {
    subject: distinguishedName(legacy.subject),
    issuer: distinguishedName(legacy.issuer),
    validFrom: new Date(notBefore).toISOString(),
    validTo: new Date(notAfter).toISOString(),
    fingerprintSha256: certificate.fingerprint256.toUpperCase(),
  };
}

/**
 * The validity window of a certificate.
 * @throws Error when a date cannot be read.
 */
export function validityOf(certificate: X509Certificate): Validity {
  return { notBefore: parseCertificateDate(certificate.validFrom), notAfter: parseCertificateDate(certificate.validTo) };
}

/**
 * Reads a date as `X509Certificate` prints it (`Jan  1 00:00:00 2030 GMT`).
 * @throws Error when it is not such a date.
 */
export function parseCertificateDate(text: string): number {
  const time = /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4} GMT$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) throw new Error(`Unreadable certificate date "${text}".`);
  return time;
}

/**
 * A distinguished name as `node:tls` gives it (short names, a repeated attribute as an array), copied
 * into a plain object that holds only strings and arrays of strings.
 */
export function distinguishedName(name: unknown): DistinguishedName {
  const result: DistinguishedName = {};
  if (typeof name !== 'object' || name === null) return result;
  for (const [attribute, value] of Object.entries(name)) {
    if (typeof value === 'string') result[attribute] = value;
    else if (Array.isArray(value)) result[attribute] = value.filter((part): part is string => typeof part === 'string');
  }
  return result;
}

/**
 * The DNS names and IP addresses (canonical form) of a subject-alternative-name text as
 * `X509Certificate.subjectAltName` prints it (`DNS:a.example, IP Address:192.0.2.1`; a value that holds
 * a comma or a quote is JSON-quoted there, so that one entry cannot pass for two). Other kinds of names
 * (e-mail, URI, directory names) are left out.
 */
export function subjectAltNames(text: string | undefined): string[] {
  const names: string[] = [];
  if (text === undefined) return names;
  let at = 0;
  while (at < text.length) {
    const colon = text.indexOf(':', at);
    if (colon < 0) break;
    const kind = text.slice(at, colon);
    let value: string;
    let end: number;
    if (text[colon + 1] === '"') {
      end = colon + 2;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end += 1;
      try {
        value = String(JSON.parse(text.slice(colon + 1, end)));
      } catch {
        break;
      }
    } else {
      end = text.indexOf(', ', colon + 1);
      if (end < 0) end = text.length;
      value = text.slice(colon + 1, end);
    }
    if (kind === 'DNS') names.push(value);
    else if (kind === 'IP Address') names.push(canonicalIpText(value));
    at = text.startsWith(', ', end) ? end + 2 : end;
  }
  return names;
}

function publicKeyOf(certificate: X509Certificate, legacyBits: unknown): SslData['publicKey'] {
  const key = certificate.publicKey;
  const kind = key.asymmetricKeyType ?? 'unknown';
  const details = key.asymmetricKeyDetails ?? {};
  const bits = details.modulusLength ?? (typeof legacyBits === 'number' ? legacyBits : undefined) ?? FIXED_KEY_BITS[kind] ?? null;
  return { type: KEY_TYPES[kind] ?? kind.toUpperCase(), bits, curve: details.namedCurve ?? null };
}
