/**
 * The names OpenSSL prints (`openssl x509 -text`) for the signature algorithms a certificate may carry,
 * by object identifier.
 */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.2': 'md2WithRSAEncryption',
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'rsassaPss',
  '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
  '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.113549.1.1.14': 'sha224WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.2.840.10040.4.3': 'dsaWithSHA1',
  '2.16.840.1.101.3.4.3.1': 'dsa_with_SHA224',
  '2.16.840.1.101.3.4.3.2': 'dsa_with_SHA256',
  '1.3.101.112': 'ED25519',
  '1.3.101.113': 'ED448',
};

const SEQUENCE = 0x30;
const OBJECT_IDENTIFIER = 0x06;

/**
 * The signature algorithm of a DER certificate (`Certificate.signatureAlgorithm`, RFC 5280 §4.1.1.2), by
 * the name OpenSSL gives it (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`, `ED25519`), or as a dotted
 * object identifier when it has no name here. `node:crypto` `X509Certificate` does not expose this field
 * before Node 22, so these few bytes are read here. Returns null for anything that is not DER of that shape;
 * never throws.
 */
export function signatureAlgorithmOf(der: Uint8Array): string | null {
  const certificate = readHeader(der, 0);
  if (certificate?.tag !== SEQUENCE) return null;
  const tbs = readHeader(der, certificate.start);
  if (tbs?.tag !== SEQUENCE) return null;
  const algorithm = readHeader(der, tbs.end);
  if (algorithm?.tag !== SEQUENCE || algorithm.end > certificate.end) return null;
  const oid = readHeader(der, algorithm.start);
  if (oid?.tag !== OBJECT_IDENTIFIER || oid.end > algorithm.end) return null;
  const dotted = decodeObjectIdentifier(der.subarray(oid.start, oid.end));
  if (dotted === null) return null;
  return SIGNATURE_ALGORITHMS[dotted] ?? dotted;
}

/** One DER tag-length header: the tag, and where its contents start and end. */
function readHeader(der: Uint8Array, offset: number): { tag: number; start: number; end: number } | null {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) return null;
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    // DER lengths are minimal; four octets already cover any certificate a TLS peer can send.
    if (octets === 0 || octets > 4) return null;
    length = 0;
    for (let i = 0; i < octets; i += 1) {
      const byte = der[start + i];
      if (byte === undefined) return null;
      length = length * 256 + byte;
    }
    start += octets;
  }
  const end = start + length;
  return end <= der.length ? { tag, start, end } : null;
}

/** The dotted form of an encoded object identifier (X.690 §8.19), or null when it is malformed. */
function decodeObjectIdentifier(bytes: Uint8Array): string | null {
  if (bytes.length === 0 || bytes.length > 64) return null;
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) return null;
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    }
  }
  if ((bytes[bytes.length - 1]! & 0x80) !== 0) return null;
  const head = arcs.shift()!;
  const root = head < 40 ? 0 : head < 80 ? 1 : 2;
  return [root, head - root * 40, ...arcs].join('.');
}
