import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How a {@link TestRdapServer} answers one request. */
export type RdapReply =
  /** JSON (an object is serialized) or any text, with a status (default 200). */
  | { status?: number; body: unknown; contentType?: string; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | { silent: true }
  /** Answer 200 and a body without end. */
  | { endless: true };

/** An RDAP server (HTTP) on loopback, for tests. */
export interface TestRdapServer {
  port: number;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Every request received: its path and `Host` header. */
  requests: { path: string; host: string | undefined; accept: string | undefined }[];
  /** Replaces how it answers; a promise holds the answer back until it settles. */
  reply: (path: string, request: IncomingMessage) => RdapReply | Promise<RdapReply>;
  /** Resolves once every connection has closed (or rejects after `ms`). */
  idle(ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 and a free port that answers each GET with `reply(path)`. */
export async function startRdapServer(
  reply: (path: string, request: IncomingMessage) => RdapReply | Promise<RdapReply>,
): Promise<TestRdapServer> {
  const sockets = new Set<Socket>();
  const state = { reply, requests: [] as TestRdapServer['requests'] };
  const server = createServer(async (request, response) => {
    const path = request.url ?? '/';
    state.requests.push({ path, host: request.headers.host, accept: request.headers.accept });
    const answer = await state.reply(path, request);
    if ('silent' in answer || response.destroyed) return;
    if ('endless' in answer) {
      response.writeHead(200, { 'content-type': 'application/rdap+json' });
      response.write('{"objectClassName":"domain","remarks":[');
      const chunk = Buffer.alloc(16 * 1024, '{"description":["x"]},');
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', pump);
      pump();
      return;
    }
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status ?? 200, {
      'content-type': answer.contentType ?? 'application/rdap+json',
      ...answer.headers,
    });
    response.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    port,
    url: `http://127.0.0.1:${port}`,
    async idle(ms = 3000) {
      const until = Date.now() + ms;
      while (sockets.size > 0) {
        if (Date.now() > until) throw new Error(`${sockets.size} RDAP connection(s) still open`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/** What {@link rdapDomain} writes about a domain. */
export interface RdapFixture {
  /** ASCII (punycode) name. */
  domain: string;
  /** The registrar's RDAP URL for the domain, given as a `related` link. */
  related?: string;
  registrar?: string;
  ianaId?: string;
  /** The registrar's web address, as a vCard `url`. */
  registrarUrl?: string;
  /** `secureDNS.delegationSigned`; absent when undefined. */
  signed?: boolean;
  port43?: string;
  /** Leave out the registrar entity (a registry that only refers). */
  withoutRegistrar?: boolean;
}

/** An RDAP domain object (RFC 9083) as Verisign's RDAP server writes one. */
export function rdapDomain({
  domain,
  related,
  registrar = 'MarkMonitor Inc.',
  ianaId = '292',
  registrarUrl,
  signed = false,
  port43,
  withoutRegistrar = false,
}: RdapFixture): Record<string, unknown> {
  const upper = domain.toUpperCase();
  const self = `https://rdap.verisign.com/com/v1/domain/${upper}`;
  const card: unknown[] = [
    ['version', {}, 'text', '4.0'],
    ['fn', {}, 'text', registrar],
  ];
  if (registrarUrl !== undefined) card.push(['url', {}, 'uri', registrarUrl]);
  const object: Record<string, unknown> = {
    objectClassName: 'domain',
    handle: '2138514_DOMAIN_COM-VRSN',
    ldhName: upper,
    links: [
      { value: self, rel: 'self', href: self, type: 'application/rdap+json' },
      ...(related === undefined ? [] : [{ value: self, rel: 'related', href: related, type: 'application/rdap+json' }]),
    ],
    status: ['client delete prohibited', 'client transfer prohibited', 'server update prohibited'],
    entities: withoutRegistrar
      ? []
      : [
          {
            objectClassName: 'entity',
            handle: ianaId,
            roles: ['registrar'],
            publicIds: [{ type: 'IANA Registrar ID', identifier: ianaId }],
            vcardArray: ['vcard', card],
            entities: [
              {
                objectClassName: 'entity',
                roles: ['abuse'],
                vcardArray: [
                  'vcard',
                  [
                    ['version', {}, 'text', '4.0'],
                    ['fn', {}, 'text', ''],
                    ['tel', { type: 'voice' }, 'uri', 'tel:+1.2086851750'],
                    ['email', {}, 'text', 'abusecomplaints@markmonitor.com'],
                  ],
                ],
              },
            ],
          },
        ],
    events: [
      { eventAction: 'registration', eventDate: '1997-09-15T04:00:00Z' },
      { eventAction: 'expiration', eventDate: '2028-09-14T04:00:00Z' },
      { eventAction: 'last changed', eventDate: '2019-09-09T15:39:04Z' },
      { eventAction: 'last update of RDAP database', eventDate: '2026-01-15T10:11:12Z' },
    ],
    secureDNS: { delegationSigned: signed },
    nameservers: [
      { objectClassName: 'nameserver', ldhName: `NS1.${upper}.` },
      { objectClassName: 'nameserver', ldhName: `NS2.${upper}` },
    ],
    rdapConformance: ['rdap_level_0', 'icann_rdap_technical_implementation_guide_1', 'icann_rdap_response_profile_1'],
    notices: [
      {
        title: 'Terms of Use',
        description: ['Service subject to Terms of Use.'],
        links: [
          {
            href: 'https://www.verisign.com/domain-names/registration-data-access-protocol/terms-service/index.xhtml',
            type: 'text/html',
          },
        ],
      },
    ],
  };
  if (port43 !== undefined) object.port43 = port43;
  return object;
}

/** RDAP's answer for a name nobody holds (HTTP 404 with an error object). */
export const RDAP_NOT_FOUND: RdapReply = {
  status: 404,
  body: { errorCode: 404, title: 'Not Found', description: ['The requested object was not found.'] },
};
