import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type DnskeyData, type Packet, type RrsigData } from 'dns-packet';
import { dsMatches, verifyRrset } from './dnssec-validator.js';

/** The records of one name in a {@link DnsZone}. */
export interface DnsRecords {
  A?: { address: string; ttl?: number }[];
  AAAA?: { address: string; ttl?: number }[];
  MX?: { exchange: string; priority: number }[];
  NS?: string[];
  /** Each TXT record as its character-strings. */
  TXT?: string[][];
  CNAME?: string;
  /** A name with an SOA is a zone's apex; the zone of a name is the closest such name above it. */
  SOA?: { nsname: string; hostmaster: string; serial: number; refresh: number; retry: number; expire: number; minttl: number };
  /** For reverse names (`4.3.2.1.in-addr.arpa`). */
  PTR?: string[];
  CAA?: { flags: number; tag: string; value: string }[];
  DNSKEY?: { flags: number; algorithm: number; key: Buffer }[];
  /** The DS records of a child zone, as its parent serves them. */
  DS?: { keyTag: number; algorithm: number; digestType: number; digest: Buffer }[];
  /** Signatures; those covering the asked type go with the answer when the question has the DO bit. */
  RRSIG?: RrsigData[];
  /** Answers every question about this name with this response code instead (2 SERVFAIL, 5 REFUSED). */
  RCODE?: number;
}

/** Names (lower case, no trailing dot, the root being `''`) and their records; a name not listed is NXDOMAIN. */
export type DnsZone = Record<string, DnsRecords>;

/** One question the server received. */
export interface ReceivedQuestion {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
  /** The EDNS DO bit. */
  dnssecOk: boolean;
  /** The AD bit of the question (RFC 6840 §5.7). */
  authenticData: boolean;
  /** The RD bit. */
  recursionDesired: boolean;
}

/** How the server behaves. */
export interface DnsServerOptions {
  /**
   * Behave as a validating resolver, with the root's DNSKEYs as its trust anchor: an answer is secure
   * when each of its RRsets has a valid signature (ECDSA P-256, checked with node:crypto) by its zone's
   * keys, and that zone's DNSKEYs are vouched for by a signed DS in its secure parent, up to the root;
   * it then gets AD (when the question has DO or AD). A zone without a DS is insecure (no AD); a broken
   * chain or signature is bogus: SERVFAIL, unless the question has CD. Simplified: the proof of
   * non-existence (NSEC) is not checked, a negative answer is secure when its zone's signed SOA is.
   * @default false: never sets AD, as a resolver that does not validate
   */
  validating?: boolean;
  /** Answer FORMERR to a question with EDNS, as a server that predates it (RFC 6891 §7). @default false */
  ednsUnsupported?: boolean;
  /** The most a UDP answer may carry, past which it is sent truncated (TC). @default the question's EDNS size, else 512 */
  maxUdpSize?: number;
}

/** A DNS server on loopback, for tests. */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, the form `DOSSIER_DNS_SERVERS` takes. */
  address: string;
  /** The port, the same for UDP and TCP. */
  port: number;
  /** How many questions it has received (over UDP and TCP). */
  questions: number;
  /** Every question it has received, in order. */
  received: ReceivedQuestion[];
  /** Replaces the zone it answers from. */
  zone: DnsZone;
  /** When true, it receives questions and never answers. */
  silent: boolean;
  /** While set, answers wait for it (a slow resolver, for as long as a test wants). */
  hold: Promise<void> | undefined;
  /** When true, it answers over UDP but never over TCP (a truncated answer then has no follow-up). */
  silentOverTcp: boolean;
  /** See {@link DnsServerOptions.validating}. */
  validating: boolean;
  close(): Promise<void>;
}

/** The reverse-DNS name of an IPv4 or IPv6 address, as PTR questions ask it. */
export function reverseName(ip: string): string {
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.split('::');
    const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
    const missing = 8 - groups(head).length - groups(tail).length;
    const full = [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)].map((g) => g.padStart(4, '0')).join('');
    return `${[...full].reverse().join('.')}.ip6.arpa`;
  }
  return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
}

/**
 * Starts a real DNS server (dns-packet, UDP and TCP on one port) on 127.0.0.1 and a free port. It
 * answers from `zone` as a recursive resolver would: a listed name with no record of the asked type
 * gets an empty NOERROR answer, an unlisted name NXDOMAIN (both with their zone's SOA in the authority
 * section), and a CNAME is followed within the zone. With EDNS DO it adds the signatures; a UDP
 * answer too long for the question's EDNS size (or 512 bytes) is sent truncated, to be asked over TCP.
 */
export async function startDnsServer(zone: DnsZone = {}, options: DnsServerOptions = {}): Promise<TestDnsServer> {
  const state = {
    zone,
    silent: false,
    hold: undefined as Promise<void> | undefined,
    silentOverTcp: false,
    questions: 0,
    validating: options.validating ?? false,
    received: [] as ReceivedQuestion[],
  };
  const respond = (message: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined => {
    let request: DecodedPacket;
    try {
      request = dnsPacket.decode(message);
    } catch {
      return undefined;
    }
    state.questions += 1;
    const question = request.questions?.[0];
    const opt = request.additionals?.find((record) => record.type === 'OPT');
    const dnssecOk = opt !== undefined && 'flag_do' in opt && opt.flag_do;
    if (question) {
      state.received.push({
        name: bare(question.name),
        type: question.type,
        transport,
        dnssecOk,
        authenticData: request.flag_ad,
        recursionDesired: request.flag_rd,
      });
    }
    if (state.silent || (transport === 'tcp' && state.silentOverTcp) || !question) return undefined;
    if (options.ednsUnsupported && opt) {
      return dnsPacket.encode({
        type: 'response',
        id: request.id,
        flags: dnsPacket.RECURSION_AVAILABLE | 1,
        questions: [question],
      });
    }
    const reply = answer(state.zone, question.name, question.type, dnssecOk);
    const security = state.validating ? securityOf(state.zone, reply.rrsets) : 'insecure';
    if (security === 'bogus' && !request.flag_cd) Object.assign(reply, { rcode: 2, answers: [], authorities: [] });
    const authenticated = security === 'secure' && (dnssecOk || request.flag_ad);
    const response: Packet = {
      type: 'response',
      id: request.id,
      flags:
        dnsPacket.RECURSION_AVAILABLE |
        (request.flag_rd ? dnsPacket.RECURSION_DESIRED : 0) |
        (request.flag_cd ? dnsPacket.CHECKING_DISABLED : 0) |
        (authenticated ? dnsPacket.AUTHENTIC_DATA : 0) |
        reply.rcode,
      questions: [question],
      answers: reply.answers,
      authorities: reply.authorities,
      additionals: opt
        ? [
            {
              type: 'OPT',
              name: '.',
              udpPayloadSize: 1232,
              extendedRcode: 0,
              ednsVersion: 0,
              flags: dnssecOk ? dnsPacket.DNSSEC_OK : 0,
              flag_do: dnssecOk,
              options: [],
            },
          ]
        : [],
    };
    const encoded = dnsPacket.encode(response);
    if (transport === 'tcp') return encoded;
    const limit = Math.min(
      options.maxUdpSize ?? Infinity,
      opt && 'udpPayloadSize' in opt ? Math.max(512, opt.udpPayloadSize) : 512,
    );
    if (encoded.length <= limit) return encoded;
    return dnsPacket.encode({
      ...response,
      flags: (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
      answers: [],
      authorities: [],
    });
  };
  const { udp, tcp, port } = await listenOnOnePort();
  udp.on('message', (message, peer) => {
    const reply = respond(message, 'udp');
    if (reply === undefined) return;
    // A held answer may find the server closed by then: it is dropped.
    const send = (): void => {
      try {
        udp.send(reply, peer.port, peer.address);
      } catch {}
    };
    if (state.hold === undefined) send();
    else void state.hold.then(send);
  });
  const connections = new Set<Socket>();
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const size = pending.readUInt16BE(0);
        const reply = respond(pending.subarray(2, 2 + size), 'tcp');
        pending = pending.subarray(2 + size);
        if (reply) {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(reply.length);
          socket.write(Buffer.concat([length, reply]));
        }
      }
    });
  });
  return Object.assign(state, {
    address: `127.0.0.1:${port}`,
    port,
    get zone() {
      return state.zone;
    },
    set zone(next: DnsZone) {
      state.zone = next;
    },
    get validating() {
      return state.validating;
    },
    set validating(next: boolean) {
      state.validating = next;
    },
    close: async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  });
}

/** A UDP socket on a free port of 127.0.0.1 and a TCP server on the same port (tried again if TCP finds it taken). */
async function listenOnOnePort(): Promise<{ udp: UdpSocket; tcp: Server; port: number }> {
  for (let attempt = 0; ; attempt += 1) {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const { port } = udp.address();
    const tcp = createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => resolve());
      });
      return { udp, tcp, port };
    } catch (error) {
      udp.close();
      if (attempt >= 20) throw error;
    }
  }
}

/** One RRset of an answer, and the zone whose keys sign it. */
interface RRsetRef {
  owner: string;
  type: string;
  apex: string | undefined;
}

/** What the zone answers to one question, and the RRsets a validator must check. */
interface Reply {
  rcode: number;
  answers: Answer[];
  authorities: Answer[];
  rrsets: RRsetRef[];
}

function answer(zone: DnsZone, asked: string, type: string, dnssecOk: boolean): Reply {
  const reply: Reply = { rcode: 0, answers: [], authorities: [], rrsets: [] };
  const signatures = (name: string, covered: string): Answer[] =>
    dnssecOk
      ? (zone[name]?.RRSIG ?? [])
          .filter((sig) => sig.typeCovered === covered)
          .map((data) => ({ name: wire(name), type: 'RRSIG', ttl: 300, data }))
      : [];
  const negative = (name: string): void => {
    const apex = zoneOf(zone, name);
    reply.rrsets.push({ owner: apex ?? '', type: 'SOA', apex });
    const soa = apex === undefined ? undefined : zone[apex]?.SOA;
    if (apex !== undefined && soa) reply.authorities.push(soaRecord(apex, soa), ...signatures(apex, 'SOA'));
  };
  let name = bare(asked);
  for (let hops = 0; hops < 8; hops += 1) {
    const records = zone[name];
    if (records?.RCODE !== undefined) {
      reply.rcode = records.RCODE;
      return reply;
    }
    if (records === undefined) {
      reply.rcode = 3; // NXDOMAIN
      negative(name);
      return reply;
    }
    if (records.CNAME !== undefined && type !== 'CNAME') {
      reply.rrsets.push({ owner: name, type: 'CNAME', apex: zoneOf(zone, name) });
      reply.answers.push({ name: wire(name), type: 'CNAME', ttl: 300, data: records.CNAME }, ...signatures(name, 'CNAME'));
      name = bare(records.CNAME);
      continue;
    }
    const found = recordsOf(name, records, type);
    if (found.length === 0) {
      // A DS belongs to the parent's side of the cut: its negative answer carries the parent's SOA.
      negative(type === 'DS' && records.SOA ? parentOf(name) : name);
      return reply;
    }
    reply.rrsets.push({
      owner: name,
      type,
      apex: type === 'DS' && records.SOA ? zoneOf(zone, parentOf(name)) : zoneOf(zone, name),
    });
    reply.answers.push(...found, ...signatures(name, type));
    return reply;
  }
  return reply;
}

function recordsOf(name: string, records: DnsRecords, type: string): Answer[] {
  const base = { name: wire(name), ttl: 300 };
  switch (type) {
    case 'A':
    case 'AAAA':
      return (records[type] ?? []).map(({ address, ttl }) => ({ ...base, type, ttl: ttl ?? 300, data: address }));
    case 'MX':
      return (records.MX ?? []).map(({ exchange, priority }) => ({ ...base, type, data: { exchange, preference: priority } }));
    case 'NS':
      return (records.NS ?? []).map((ns) => ({ ...base, type, data: ns }));
    case 'TXT':
      return (records.TXT ?? []).map((data) => ({ ...base, type, data }));
    case 'CNAME':
      return records.CNAME === undefined ? [] : [{ ...base, type, data: records.CNAME }];
    case 'PTR':
      return (records.PTR ?? []).map((data) => ({ ...base, type, data }));
    case 'SOA':
      return records.SOA ? [soaRecord(name, records.SOA)] : [];
    case 'CAA':
      // dns-packet's types know three tags; the wire carries any, as a real zone may.
      return (records.CAA ?? []).map((data) => ({ ...base, type, data: { ...data, tag: data.tag as 'issue' } }));
    case 'DNSKEY':
      return (records.DNSKEY ?? []).map((data) => ({ ...base, type, data }));
    case 'DS':
      return (records.DS ?? []).map((data) => ({ ...base, type, data }));
    default:
      return [];
  }
}

function soaRecord(name: string, soa: NonNullable<DnsRecords['SOA']>): Answer {
  const { nsname, hostmaster, serial, refresh, retry, expire, minttl } = soa;
  return {
    name: wire(name),
    type: 'SOA',
    ttl: 300,
    data: { mname: nsname, rname: hostmaster, serial, refresh, retry, expire, minimum: minttl },
  };
}

/** The closest name at or above `name` that has an SOA: its zone's apex. */
export function zoneOf(zone: DnsZone, name: string): string | undefined {
  for (let at = name; ; at = parentOf(at)) {
    if (zone[at]?.SOA) return at;
    if (at === '') return undefined;
  }
}

type Security = 'secure' | 'insecure' | 'bogus';

/** How a validating resolver sees an answer: secure if every RRset is, bogus if any is (see {@link DnsServerOptions.validating}). */
function securityOf(zone: DnsZone, rrsets: readonly RRsetRef[]): Security {
  if (rrsets.length === 0) return 'insecure';
  const zones = new Map<string, { status: Security; keys: DnskeyData[] }>();
  const signedBy = (owner: string, type: string, signer: string, keys: readonly DnskeyData[]): boolean => {
    const records = zone[owner] ? recordsOf(owner, zone[owner], type) : [];
    return (zone[owner]?.RRSIG ?? []).some(
      (sig) => sig.typeCovered === type && bare(sig.signersName) === signer && verifyRrset(records, sig, keys),
    );
  };
  const statusOf = (apex: string | undefined): { status: Security; keys: DnskeyData[] } => {
    if (apex === undefined) return { status: 'insecure', keys: [] };
    const known = zones.get(apex);
    if (known) return known;
    const keys = zone[apex]?.DNSKEY ?? [];
    let status: Security;
    if (apex === '') {
      status = keys.length === 0 ? 'insecure' : signedBy('', 'DNSKEY', '', keys) ? 'secure' : 'bogus';
    } else {
      const parentApex = zoneOf(zone, parentOf(apex));
      const parent = statusOf(parentApex);
      const ds = zone[apex]?.DS ?? [];
      if (parent.status !== 'secure') status = parent.status;
      else if (ds.length === 0) status = 'insecure';
      else if (!signedBy(apex, 'DS', parentApex ?? '', parent.keys)) status = 'bogus';
      else {
        const trusted = keys.filter((key) => ds.some((record) => dsMatches(apex, record, key)));
        status = trusted.length > 0 && signedBy(apex, 'DNSKEY', apex, trusted) ? 'secure' : 'bogus';
      }
    }
    const result = { status, keys };
    zones.set(apex, result);
    return result;
  };
  let security: Security = 'secure';
  for (const { owner, type, apex } of rrsets) {
    const { status, keys } = statusOf(apex);
    if (status === 'bogus') return 'bogus';
    if (status === 'insecure') security = 'insecure';
    else if (!signedBy(owner, type, apex!, keys)) return 'bogus';
  }
  return security;
}

function parentOf(name: string): string {
  return name.includes('.') ? name.slice(name.indexOf('.') + 1) : '';
}

function bare(name: string): string {
  return name === '.' ? '' : name.toLowerCase().replace(/\.$/, '');
}

function wire(name: string): string {
  return name === '' ? '.' : name;
}
