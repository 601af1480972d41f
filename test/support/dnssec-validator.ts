import { createHash, createPublicKey, verify } from 'node:crypto';
import dnsPacket, { type Answer, type DnskeyData, type DsData, type RrsigData } from 'dns-packet';

/** The record codecs dns-packet has at run time but its types do not declare. */
const codecs = dnsPacket as unknown as {
  answer: { encode(record: Answer): Buffer };
  name: { encode(name: string): Buffer };
  rrsig: { encode(data: RrsigData): Buffer };
  dnskey: { encode(data: DnskeyData): Buffer };
};

/** ECDSA P-256 with SHA-256, the algorithm the test zones are signed with (the one checked here). */
const ECDSAP256SHA256 = 13;

/** A record's owner and the names in its data in lower case, as the canonical form wants (RFC 4034 §6.2). */
function canonical(record: Answer, ttl: number): Answer {
  const lower = (name: string): string => name.toLowerCase();
  const base = { ...record, name: lower(record.name), ttl, class: 'IN' as const };
  switch (base.type) {
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return { ...base, data: lower(base.data) };
    case 'SOA':
      return { ...base, data: { ...base.data, mname: lower(base.data.mname), rname: lower(base.data.rname) } };
    case 'MX':
      return { ...base, data: { ...base.data, exchange: lower(base.data.exchange) } };
    default:
      return base as Answer;
  }
}

/** The key tag of a DNSKEY (RFC 4034 appendix B). */
export function keyTag(key: DnskeyData): number {
  const rdata = codecs.dnskey.encode(key).subarray(2);
  let sum = 0;
  for (let i = 0; i < rdata.length; i += 1) sum += i & 1 ? rdata[i]! : rdata[i]! << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** Whether a DS (SHA-256 digest) vouches for this DNSKEY of `owner` (RFC 4034 §5.1.4). */
export function dsMatches(owner: string, ds: DsData, key: DnskeyData): boolean {
  if (ds.digestType !== 2 || ds.algorithm !== key.algorithm || ds.keyTag !== keyTag(key)) return false;
  const digest = createHash('sha256')
    .update(Buffer.concat([codecs.name.encode(owner === '' ? '.' : owner.toLowerCase()), codecs.dnskey.encode(key).subarray(2)]))
    .digest();
  return digest.equals(ds.digest);
}

/**
 * Whether `signature` over the RRset `records` holds for one of `keys` (RFC 4034 §3.1.8.1): its
 * validity period covers now, and the ECDSA signature verifies over the RRSIG's data and the records
 * in canonical form and order.
 */
export function verifyRrset(records: Answer[], signature: RrsigData, keys: readonly DnskeyData[]): boolean {
  const now = Math.floor(Date.now() / 1000);
  if (records.length === 0 || now < signature.inception || now > signature.expiration) return false;
  if (signature.algorithm !== ECDSAP256SHA256) return false;
  const header = codecs.rrsig
    .encode({ ...signature, signersName: signature.signersName.toLowerCase(), signature: Buffer.alloc(0) })
    .subarray(2);
  const ownerLength = codecs.name.encode(records[0]!.name.toLowerCase()).length;
  const wire = records
    .map((record) => codecs.answer.encode(canonical(record, signature.originalTTL)))
    .sort((a, b) => Buffer.compare(a.subarray(ownerLength + 10), b.subarray(ownerLength + 10)));
  const data = Buffer.concat([header, ...wire]);
  return keys.some((key) => {
    if (key.algorithm !== ECDSAP256SHA256 || keyTag(key) !== signature.keyTag || key.key.length !== 64) return false;
    const publicKey = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: key.key.subarray(0, 32).toString('base64url'),
        y: key.key.subarray(32).toString('base64url'),
      },
      format: 'jwk',
    });
    return verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature.signature);
  });
}
