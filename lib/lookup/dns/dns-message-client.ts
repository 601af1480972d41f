import { createSocket } from 'node:dgram';
import { getServers } from 'node:dns/promises';
import { randomInt } from 'node:crypto';
import { connect, isIPv6 } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet } from 'dns-packet';
import { DossierError } from '../../errors.js';
import { abortError } from '../net/abort.js';
import { parseHostPort, type HostPort } from '../net/host-port.js';
import { resolveNamesOnce } from '../net/system-dns-resolver.js';
import type { DnsMessageAnswer, DnsMessageClient, DnsMessageRecord, DnsMessageType } from '../../ports/dns-message-client.js';

/** Options of {@link createDnsMessageClient}. */
export interface DnsMessageClientOptions {
  /** The DNS servers (a name is resolved once, by the system); none means the system's resolvers. */
  servers: readonly HostPort[];
  /** The time all servers together get for one question; each of n servers gets 1/n of it. */
  timeoutMs: number;
}

/**
 * The EDNS payload size asked for: the 2020 DNS flag day's value, which fits an unfragmented packet on
 * every common path. A larger answer comes truncated and is asked again over TCP.
 */
export const EDNS_UDP_PAYLOAD_SIZE = 1232;

/** A DNS message over TCP carries a 2-byte length, so this is the most a TCP answer may read. */
const TCP_MESSAGE_LIMIT = 2 + 65535;

/**
 * A {@link DnsMessageClient} over UDP and TCP, on the `dns-packet` library: one question, with the RD
 * and AD bits and EDNS with the DO bit, to each server in turn until one answers NOERROR or NXDOMAIN.
 * A truncated UDP answer (TC bit) is asked again over TCP of the same server. The configured servers
 * are the operator's, as for the `node:dns` resolver, so the target rules for lookups do not apply to
 * them; what the user gives is only ever the question.
 */
export function createDnsMessageClient(options: DnsMessageClientOptions): DnsMessageClient {
  // node:dns lists the system's resolvers as host[:port], the form read here.
  const parsed = options.servers.length > 0 ? options.servers : getServers().flatMap((server) => parseHostPort(server, 53) ?? []);
  const servers = resolveNamesOnce(
    parsed,
    (error) =>
      new DossierError('ERR_UPSTREAM_FAILED', `A DNS server's name could not be resolved: ${String(error)}`, { cause: error }),
  );
  return {
    async query(name: string, type: DnsMessageType, signal: AbortSignal): Promise<DnsMessageAnswer> {
      signal.throwIfAborted();
      const addresses = await servers();
      if (addresses.length === 0) throw new DossierError('ERR_UPSTREAM_FAILED', 'No DNS server is configured.');
      const attemptMs = Math.max(1, Math.floor(options.timeoutMs / addresses.length));
      let failure: unknown;
      for (const server of addresses) {
        try {
          const packet = await ask(server, name, type, signal, attemptMs);
          const rcode = rcodeOf(packet);
          if (rcode === 'NOERROR' || rcode === 'NXDOMAIN') return toAnswer(packet, rcode);
          failure = new DossierError('ERR_UPSTREAM_FAILED', `The DNS server answered ${rcode} to ${type} ${displayName(name)}.`);
        } catch (error) {
          if (signal.aborted) throw abortError(signal, 'The DNS server');
          failure = error;
        }
      }
      throw failure;
    },
  };
}

/** One question to one server: UDP, then TCP when the answer is truncated, within `attemptMs` together. */
async function ask(
  server: HostPort,
  name: string,
  type: DnsMessageType,
  signal: AbortSignal,
  attemptMs: number,
): Promise<DecodedPacket> {
  const timeout = AbortSignal.timeout(attemptMs);
  const both = AbortSignal.any([signal, timeout]);
  const message = (edns: boolean): Packet => ({
    type: 'query',
    id: randomInt(0, 65536),
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type, name: name === '' ? '.' : name, class: 'IN' }],
    additionals: edns
      ? [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: EDNS_UDP_PAYLOAD_SIZE,
            extendedRcode: 0,
            ednsVersion: 0,
            flags: dnsPacket.DNSSEC_OK,
            flag_do: true,
            options: [],
          },
        ]
      : [],
  });
  const exchange = async (question: Packet): Promise<DecodedPacket> => {
    const matches = (packet: DecodedPacket): boolean => {
      const asked = packet.questions?.[0];
      return (
        packet.type === 'response' &&
        packet.id === question.id &&
        asked !== undefined &&
        asked.type === type &&
        normalName(asked.name) === normalName(name)
      );
    };
    const udp = await overUdp(server, dnsPacket.encode(question), matches, both);
    if (!udp.flag_tc) return udp;
    const tcp = await overTcp(server, dnsPacket.streamEncode(question), both);
    if (!matches(tcp)) throw new DossierError('ERR_UPSTREAM_FAILED', `The DNS server answered another question over TCP.`);
    return tcp;
  };
  try {
    const answer = await exchange(message(true));
    // A server that does not speak EDNS answers FORMERR (RFC 6891 §7): it is asked again without it.
    return rcodeOf(answer) === 'FORMERR' ? await exchange(message(false)) : answer;
  } catch (error) {
    if (signal.aborted) throw abortError(signal, 'The DNS server');
    if (timeout.aborted) {
      throw new DossierError('ERR_UPSTREAM_TIMEOUT', `The DNS server did not answer ${type} ${displayName(name)} in time.`, {
        cause: error,
      });
    }
    if (error instanceof DossierError) throw error;
    const code = (error as { code?: string }).code ?? String(error);
    throw new DossierError('ERR_UPSTREAM_FAILED', `The DNS server failed to answer ${type} ${displayName(name)} (${code}).`, {
      cause: error,
    });
  }
}

/** Sends one datagram on a connected socket (so only the server's datagrams arrive) and waits for the matching answer. */
function overUdp(
  server: HostPort,
  message: Buffer,
  matches: (packet: DecodedPacket) => boolean,
  signal: AbortSignal,
): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    let settled = false;
    const done = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.close();
      settle();
    };
    const onAbort = (): void => done(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) => done(() => reject(error)));
    socket.on('message', (datagram) => {
      let packet: DecodedPacket;
      try {
        packet = dnsPacket.decode(datagram);
      } catch {
        return; // not a DNS message: keep waiting for the answer, as a spoofed datagram would want otherwise
      }
      if (matches(packet)) done(() => resolve(packet));
    });
    socket.connect(server.port, server.host, () => socket.send(message));
  });
}

/** Sends one length-prefixed message over TCP and reads one answer, at most {@link TCP_MESSAGE_LIMIT} bytes. */
function overTcp(server: HostPort, message: Buffer, signal: AbortSignal): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const done = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      settle();
    };
    const onAbort = (): void => done(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.setNoDelay(true);
    socket.on('connect', () => socket.write(message));
    socket.on('error', (error) => done(() => reject(error)));
    socket.on('close', () =>
      done(() => reject(Object.assign(new Error('The connection closed before the answer.'), { code: 'ECONNRESET' }))),
    );
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length < 2) return;
      const all = Buffer.concat(chunks);
      const size = 2 + all.readUInt16BE(0);
      if (length < size) return;
      if (size > TCP_MESSAGE_LIMIT) return done(() => reject(new Error('The TCP answer is too long.')));
      try {
        const packet = dnsPacket.decode(all.subarray(2, size));
        done(() => resolve(packet));
      } catch (error) {
        done(() => reject(error));
      }
    });
  });
}

/** The answer's records of the types the port knows, and its AD flag. */
function toAnswer(packet: DecodedPacket, rcode: 'NOERROR' | 'NXDOMAIN'): DnsMessageAnswer {
  const records = (section: Answer[] | undefined): DnsMessageRecord[] =>
    (section ?? []).flatMap((answer) => toRecord(answer) ?? []);
  return { rcode, authenticated: packet.flag_ad, answers: records(packet.answers), authorities: records(packet.authorities) };
}

function toRecord(answer: Answer): DnsMessageRecord | undefined {
  const name = normalName(answer.name);
  const ttl = 'ttl' in answer ? (answer.ttl ?? 0) : 0;
  switch (answer.type) {
    case 'SOA':
      return { name, ttl, type: 'SOA', data: { mname: normalName(answer.data.mname), rname: normalName(answer.data.rname) } };
    case 'DNSKEY':
      return { name, ttl, type: 'DNSKEY', data: { flags: answer.data.flags, algorithm: answer.data.algorithm } };
    case 'DS':
      return {
        name,
        ttl,
        type: 'DS',
        data: { keyTag: answer.data.keyTag, algorithm: answer.data.algorithm, digestType: answer.data.digestType },
      };
    case 'CAA': {
      const critical = answer.data.issuerCritical === true || ((answer.data.flags ?? 0) & 128) !== 0;
      return { name, ttl, type: 'CAA', data: { critical, tag: answer.data.tag, value: answer.data.value } };
    }
    case 'TXT': {
      const data = answer.data;
      const strings = (Array.isArray(data) ? data : [data]).map((part) =>
        typeof part === 'string' ? part : part.toString('utf8'),
      );
      return { name, ttl, type: 'TXT', data: strings };
    }
    case 'CNAME':
      return { name, ttl, type: 'CNAME', data: normalName(answer.data) };
    default:
      return undefined;
  }
}

function rcodeOf(packet: DecodedPacket): string {
  // dns-packet decodes the response code, but its types do not declare it.
  return (packet as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR';
}

/** Lower case, without the final dot; the root is the empty name. */
export function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function displayName(name: string): string {
  return name === '' || name === '.' ? 'the root' : name;
}
