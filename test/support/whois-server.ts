import { createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * How a {@link TestWhoisServer} answers one query: a text (sent, then the connection closed, as
 * RFC 3912 servers do), or a misbehaviour.
 */
export type WhoisReply =
  | string
  /** These bytes, as a registry in another charset sends them. */
  | Buffer
  /** Accept the connection, read the query and never answer nor close. */
  | { silent: true }
  /** Answer without end, as fast as the client reads. */
  | { endless: true }
  /** Answer bytes that are not a whois answer, then close. */
  | { garbage: true }
  /** Hold the query until this settles, then answer as it says (for slow servers the test releases). */
  | { after: Promise<WhoisReply> };

/** A whois server (port 43 protocol) on loopback, for tests. */
export interface TestWhoisServer {
  port: number;
  /** `127.0.0.1:PORT`, the form `DOSSIER_WHOIS_SERVER` takes. */
  address: string;
  /** Every query received, without its CR LF. */
  queries: string[];
  /** Connections not yet closed. */
  readonly open: number;
  /** Replaces how it answers. */
  reply: (query: string) => WhoisReply;
  /** Resolves once every connection has closed (or rejects after `ms`). */
  idle(ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a whois server on 127.0.0.1 and a free port that answers each query with `reply(query)`. */
export async function startWhoisServer(reply: (query: string) => WhoisReply): Promise<TestWhoisServer> {
  const sockets = new Set<Socket>();
  const state = { reply, queries: [] as string[] };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    let answered = false;
    socket.on('data', (chunk) => {
      if (answered) return;
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n');
      if (end === -1) return;
      const query = received.slice(0, end);
      answered = true;
      state.queries.push(query);
      answer(socket, state.reply(query));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    port,
    address: `127.0.0.1:${port}`,
    get open() {
      return sockets.size;
    },
    async idle(ms = 3000) {
      const until = Date.now() + ms;
      while (sockets.size > 0) {
        if (Date.now() > until) throw new Error(`${sockets.size} whois connection(s) still open`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

function answer(socket: Socket, reply: WhoisReply): void {
  if (typeof reply === 'string' || Buffer.isBuffer(reply)) {
    socket.end(reply);
  } else if ('after' in reply) {
    void reply.after.then((later) => answer(socket, later));
  } else if ('silent' in reply) {
    // Say nothing; the client must give up.
  } else if ('garbage' in reply) {
    socket.end(Buffer.from([0xff, 0xfe, 0x00, 0x13, 0x37, 0x80, 0x81, 0x0d, 0x0a, 0xde, 0xad, 0xbe, 0xef]));
  } else {
    const chunk = Buffer.alloc(16 * 1024, 'Domain Status: ok\r\n');
    const pump = (): void => {
      while (!socket.destroyed && socket.write(chunk));
    };
    socket.on('drain', pump);
    pump();
  }
}

export { closedPort } from './closed-port.js';

/** What {@link verisignWhois} and {@link registrarWhois} write about a domain. */
export interface WhoisFixture {
  /** Upper-cased in the registry's text, as Verisign writes it. */
  domain: string;
  /** `Registrar WHOIS Server:` value (a host, or `host:port` for tests). */
  registrarWhois?: string;
  registrar?: string;
  ianaId?: string;
  /** Leave out what a thin registry does not hold: the registrar's URL and IANA id, DNSSEC. */
  thin?: boolean;
}

/** A Verisign-style .com registry answer (the "thin" shape of a thick registry: no contacts). */
export function verisignWhois({
  domain,
  registrarWhois = 'whois.markmonitor.com',
  registrar = 'MarkMonitor Inc.',
  ianaId = '292',
  thin = false,
}: WhoisFixture): string {
  const upper = domain.toUpperCase();
  const lines = [
    `   Domain Name: ${upper}`,
    '   Registry Domain ID: 2138514_DOMAIN_COM-VRSN',
    `   Registrar WHOIS Server: ${registrarWhois}`,
    '   Registrar URL: http://www.markmonitor.com',
    '   Updated Date: 2019-09-09T15:39:04Z',
    '   Creation Date: 1997-09-15T04:00:00Z',
    '   Registry Expiry Date: 2028-09-14T04:00:00Z',
    `   Registrar: ${registrar}`,
    `   Registrar IANA ID: ${ianaId}`,
    '   Registrar Abuse Contact Email: abusecomplaints@markmonitor.com',
    '   Registrar Abuse Contact Phone: +1.2086851750',
    '   Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited',
    '   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited',
    '   Domain Status: serverUpdateProhibited https://icann.org/epp#serverUpdateProhibited',
    `   Name Server: NS1.${upper}`,
    `   Name Server: NS2.${upper}`,
    '   DNSSEC: unsigned',
    '   URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/',
    '>>> Last update of whois database: 2026-01-15T10:11:12Z <<<',
    '',
    'For more information on Whois status codes, please visit https://icann.org/epp',
    '',
    'NOTICE: The expiration date displayed in this record is the date the',
    "registrar's sponsorship of the domain name registration in the registry is",
    'currently set to expire.',
    '',
    'TERMS OF USE: You are not authorized to access or query our Whois',
    'database through the use of electronic processes that are high-volume and',
    'automated except as reasonably necessary to register domain names or',
    'modify existing registrations.',
    '',
  ];
  const left = thin ? lines.filter((line) => !/Registrar URL|Registrar IANA ID|DNSSEC/.test(line)) : lines;
  return left.join('\r\n');
}

/** Verisign's answer for a name nobody holds. */
export function verisignNoMatch(domain: string): string {
  return [
    `No match for "${domain.toUpperCase()}".`,
    '>>> Last update of whois database: 2026-01-15T10:11:12Z <<<',
    '',
    'NOTICE: The expiration date displayed in this record is the date the',
    "registrar's sponsorship of the domain name registration in the registry is",
    'currently set to expire.',
    '',
  ].join('\r\n');
}

/** A registrar's answer (thick: with the registrant), as ICANN-accredited registrars write it. */
export function registrarWhois({
  domain,
  registrarWhois = 'whois.markmonitor.com',
  registrar = 'MarkMonitor, Inc.',
  ianaId = '292',
}: WhoisFixture): string {
  return [
    `Domain Name: ${domain}`,
    'Registry Domain ID: 2138514_DOMAIN_COM-VRSN',
    `Registrar WHOIS Server: ${registrarWhois}`,
    'Registrar URL: http://www.markmonitor.com',
    'Updated Date: 2024-08-02T02:17:33+0000',
    'Creation Date: 1997-09-15T07:00:00+0000',
    'Registrar Registration Expiration Date: 2028-09-13T07:00:00+0000',
    `Registrar: ${registrar}`,
    `Registrar IANA ID: ${ianaId}`,
    'Registrar Abuse Contact Email: abusecomplaints@markmonitor.com',
    'Registrar Abuse Contact Phone: +1.2086851750',
    'Domain Status: clientUpdateProhibited (https://www.icann.org/epp#clientUpdateProhibited)',
    'Domain Status: clientTransferProhibited (https://www.icann.org/epp#clientTransferProhibited)',
    'Registry Registrant ID: REDACTED FOR PRIVACY',
    'Registrant Name: REDACTED FOR PRIVACY',
    'Registrant Organization: Example Holdings LLC',
    'Registrant State/Province: CA',
    'Registrant Country: US',
    'Registrant Email: Select Request Email Form at https://domains.markmonitor.com/whois/',
    `Name Server: ns1.${domain}`,
    `Name Server: ns2.${domain}`,
    'DNSSEC: unsigned',
    'URL of the ICANN WHOIS Data Problem Reporting System: http://wdprs.internic.net/',
    '>>> Last update of WHOIS database: 2026-01-15T10:09:47+0000 <<<',
    '',
  ].join('\n');
}
