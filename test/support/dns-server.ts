import dns2 from 'dns2';

const { Packet } = dns2;

/** The records of one name in a {@link DnsZone}. */
export interface DnsRecords {
  A?: { address: string; ttl?: number }[];
  AAAA?: { address: string; ttl?: number }[];
  MX?: { exchange: string; priority: number }[];
  NS?: string[];
  /** Each TXT record as its character-strings. */
  TXT?: string[][];
  CNAME?: string;
  SOA?: { nsname: string; hostmaster: string; serial: number; refresh: number; retry: number; expire: number; minttl: number };
  /** For reverse names (`4.3.2.1.in-addr.arpa`). */
  PTR?: string[];
}

/** Names (lower case, no trailing dot) and their records; a name not listed is NXDOMAIN. */
export type DnsZone = Record<string, DnsRecords>;

/** A DNS server on loopback, for tests. */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, the form `DOSSIER_DNS_SERVERS` takes. */
  address: string;
  port: number;
  /** How many questions it has received. */
  questions: number;
  /** Replaces the zone it answers from. */
  zone: DnsZone;
  /** When true, it receives questions and never answers. */
  silent: boolean;
  close(): Promise<void>;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));

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
 * Starts a real DNS server (dns2, UDP) on 127.0.0.1 and a free port. It answers from `zone`: a listed
 * name with no record of the asked type gets an empty NOERROR answer, an unlisted name NXDOMAIN, and
 * a CNAME is followed within the zone, as a recursive resolver would.
 */
export async function startDnsServer(zone: DnsZone = {}): Promise<TestDnsServer> {
  const state = { zone, silent: false, questions: 0 };
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      state.questions += 1;
      if (state.silent) return;
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (question) answer(state.zone, question.name.toLowerCase().replace(/\.$/, ''), question.type, question.name, response);
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port ?? 0;
  return Object.assign(state, {
    address: `127.0.0.1:${port}`,
    port,
    get zone() {
      return state.zone;
    },
    set zone(next: DnsZone) {
      state.zone = next;
    },
    close: () => server.close(),
  });
}

function answer(zone: DnsZone, name: string, type: number, asked: string, response: InstanceType<typeof Packet>): void {
  const records = zone[name];
  if (records === undefined) {
    response.header.rcode = 3; // NXDOMAIN
    return;
  }
  const typeName = TYPE_NAMES.get(type);
  // dns2's types want encoded resources; its encoder takes these plain records.
  const push = (record: Record<string, unknown>): number => (response.answers as unknown[]).push(record);
  const base = { name: asked, class: Packet.CLASS.IN, ttl: 300 };
  if (records.CNAME !== undefined && typeName !== 'CNAME') {
    push({ ...base, type: Packet.TYPE.CNAME, domain: records.CNAME });
    answer(zone, records.CNAME, type, records.CNAME, response);
    return;
  }
  switch (typeName) {
    case 'A':
    case 'AAAA':
      for (const { address, ttl } of records[typeName] ?? []) push({ ...base, type, address, ttl: ttl ?? 300 });
      break;
    case 'MX':
      for (const { exchange, priority } of records.MX ?? []) push({ ...base, type, exchange, priority });
      break;
    case 'NS':
      for (const ns of records.NS ?? []) push({ ...base, type, ns });
      break;
    case 'TXT':
      for (const data of records.TXT ?? []) push({ ...base, type, data });
      break;
    case 'CNAME':
      if (records.CNAME !== undefined) push({ ...base, type, domain: records.CNAME });
      break;
    case 'PTR':
      for (const domain of records.PTR ?? []) push({ ...base, type, domain });
      break;
    case 'SOA':
      if (records.SOA) {
        const { nsname, hostmaster, serial, refresh, retry, expire, minttl } = records.SOA;
        push({ ...base, type, primary: nsname, admin: hostmaster, serial, refresh, retry, expiration: expire, minimum: minttl });
      }
      break;
    default:
      break;
  }
}
