import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';

// A corpus of requests over every route of the contract, errors included, sent as raw HTTP/1.1 and
// answered as raw bytes: status line, headers in the order they came, and body. Run against two
// servers, it says whether they answer byte for byte alike (apart from what differs from one run to
// the next: the date, times, random ids and secrets, the port, which are replaced by placeholders).

/** What the corpus needs of the server it runs against. */
export interface CorpusTarget {
  /** `http://127.0.0.1:PORT`, optionally with a path prefix where Dossier is mounted. */
  url: string;
  /** The server's DOSSIER_ADMIN_TOKEN, or undefined when the panel is off. */
  adminToken: string | undefined;
  /** A domain the server's DNS answers (example.test with an A record). */
  domain: string;
}

/** One exchange, normalized: the request line and the whole answer as text. */
export interface CorpusEntry {
  name: string;
  answer: string;
  /** The `X-Request-Id` the request named, when it named one. */
  requestId?: string;
}

/** A raw answer: status line, header lines in order, and the body (chunked bodies joined). */
export interface RawAnswer {
  status: number;
  head: string[];
  body: Buffer;
}

/** Sends `request` on a connection of its own and reads the answer until the server closes it. */
export async function exchange(url: URL, request: Buffer): Promise<RawAnswer> {
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  // Written, not ended: a client that half-closes its side makes Node's server drop the answer in flight.
  socket.write(request);
  const chunks: Buffer[] = [];
  for await (const chunk of socket as AsyncIterable<Buffer>) chunks.push(chunk);
  const raw = Buffer.concat(chunks);
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  let body: Buffer = raw.subarray(end + 4);
  if (head.some((line) => /^transfer-encoding:\s*chunked$/i.test(line))) body = dechunk(body);
  return { status: Number(head[0]!.split(' ')[1]), head, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** What differs from run to run, and its placeholder. Ids are numbered in the order they first appear. */
export class Normalizer {
  private readonly seen = new Map<string, string>();

  constructor(private readonly host: string) {}

  text(value: string): string {
    return value
      .split(this.host)
      .join('<host>')
      .replace(/\b(key|acct|wat)_[0-9a-f]{16}\b/g, (id, kind: string) => this.name(id, kind))
      .replace(/\bdsr_[A-Za-z0-9_-]{43}/g, (secret) => this.name(secret, 'secret'))
      .replace(/\bwhsec_[A-Za-z0-9+/=]{20,}/g, (secret) => this.name(secret, 'whsec'))
      .replace(/(?<=dossier_admin=)[A-Za-z0-9_-]{22}\.\d{13}\.[A-Za-z0-9_-]{43}/g, (cookie) => this.name(cookie, 'session'))
      .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?Z?)?/g, '<time>')
      .replace(/\b\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?\b/g, '<date>')
      .replace(/^(Retry-After): \d{3,}$/gim, '$1: <seconds>')
      .replace(/expires=\w{3}, \d{2} \w{3} \d{4} [\d:]{8} GMT/g, (date) => (date.includes('1970') ? date : 'expires=<date>'))
      .replace(/\b[0-9a-f]{12}-[0-9a-z]+\b/g, '<generated-id>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
      .replace(/;t=\d+/g, ';t=<seconds>')
      .replace(/^(X-RateLimit-Reset): \d+$/gim, '$1: <reset>')
      .replace(/("reset_at":")[^"]*/g, '$1<time>');
  }

  private name(value: string, kind: string): string {
    let name = this.seen.get(value);
    if (name === undefined) {
      name = `<${kind}-${[...this.seen.values()].filter((seen) => seen.startsWith(`<${kind}-`)).length + 1}>`;
      this.seen.set(value, name);
    }
    return name;
  }
}

/** The request's headers: a list, so that a test can send one twice or in a given case. */
type Headers = [string, string][];

interface Request {
  method?: string;
  path: string;
  headers?: Headers;
  body?: string | Buffer;
  /** Send the body in chunks (Transfer-Encoding: chunked) instead of with a Content-Length. */
  chunked?: boolean;
  /** Send no Host header. */
  noHost?: boolean;
}

/**
 * Runs the corpus against `target` and returns its entries, normalized. The requests go one after the
 * other, each on a connection of its own (`Connection: close`), and each names its `X-Request-Id` unless
 * it tests the server's own.
 */
export async function recordCorpus(target: CorpusTarget): Promise<CorpusEntry[]> {
  const url = new URL(target.url);
  const prefix = url.pathname.replace(/\/+$/, '');
  const host = url.host;
  const normalize = new Normalizer(host);
  const entries: CorpusEntry[] = [];
  let counter = 0;

  const rawSend = async (name: string, request: Buffer, requestId?: string): Promise<RawAnswer> => {
    const answer = await exchange(url, request);
    let body: string;
    const type = answer.head.find((line) => /^content-type:/i.test(line)) ?? '';
    if (/text\/plain; version=0\.0\.4/.test(type)) {
      // Metrics: their names and the request counters, not the durations, process figures and background
      // lookups (a watch's check) that vary.
      body = answer.body
        .toString('utf8')
        .split('\n')
        .filter((line) => /^# (HELP|TYPE) dossier_|^dossier_(http_requests_total|quota_rejections_total)/.test(line))
        .join('\n');
    } else if (answer.body.length > 20_000 || /image\/png/.test(type)) {
      body = `<${answer.body.length} bytes, sha256 ${createHash('sha256').update(answer.body).digest('hex')}>`;
    } else if (/application\/x-ndjson/.test(type)) {
      // Lines come as their items finish: in any order.
      body = answer.body.toString('utf8').split('\n').sort().join('\n');
    } else {
      body = answer.body.toString('utf8');
    }
    // The date, and the length of what varies in length: metrics.
    const head = answer.head.filter(
      (line) => !/^date:/i.test(line) && !(/version=0\.0\.4/.test(type) && /^content-length:/i.test(line)),
    );
    entries.push({ name: normalize.text(name), answer: normalize.text(`${head.join('\n')}\n\n${body}`), requestId });
    return answer;
  };

  const send = async (name: string, request: Request): Promise<{ status: number; headers: Headers; json: () => any }> => {
    const method = request.method ?? 'GET';
    const lines = [`${method} ${prefix}${request.path} HTTP/1.1`];
    if (!request.noHost) lines.push(`Host: ${host}`);
    const headers = request.headers ?? [];
    const named = headers.find(([header]) => header.toLowerCase() === 'x-request-id')?.[1];
    const requestId = named ?? `corpus-${++counter}`;
    if (named === undefined) lines.push(`X-Request-Id: ${requestId}`);
    for (const [header, value] of headers) lines.push(`${header}: ${value}`);
    lines.push('Connection: close');
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    if (body !== undefined) {
      if (request.chunked) lines.push('Transfer-Encoding: chunked');
      else if (!headers.some(([header]) => header.toLowerCase() === 'content-length'))
        lines.push(`Content-Length: ${body.length}`);
    }
    let payload = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    if (body !== undefined) {
      const framed = request.chunked
        ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
        : body;
      payload = Buffer.concat([payload, framed]);
    }
    const answer = await rawSend(`${name}: ${method} ${request.path}`, payload, requestId);
    const parsed = answer.head.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    });
    return { status: answer.status, headers: parsed, json: () => JSON.parse(answer.body.toString('utf8')) };
  };

  const bearer = (secret: string): Headers => [['Authorization', `Bearer ${secret}`]];
  const json: Headers = [['Content-Type', 'application/json']];
  const form: Headers = [['Content-Type', 'application/x-www-form-urlencoded']];
  const origin: Headers = [['Origin', `http://${host}`]];
  const token = target.adminToken;
  const admin: Headers = token === undefined ? [] : bearer(token);

  // ---------------------------------------------------------------- the server's own routes
  for (const accept of [
    undefined,
    'text/html',
    'application/json',
    'text/html;q=0',
    '*/*',
    'text/html,application/xhtml+xml,*/*;q=0.8',
  ]) {
    await send(`index, Accept ${accept}`, { path: '/', headers: accept === undefined ? [] : [['Accept', accept]] });
  }
  await send('index', { method: 'HEAD', path: '/' });
  await send('health', { path: '/healthz' });
  await send('health', { method: 'HEAD', path: '/healthz' });
  await send('health, trailing slash', { path: '/healthz/' });
  await send('health, upper case', { path: '/HEALTHZ' });
  await send('health, query', { path: '/healthz?x=1' });
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'TRACE']) {
    await send('health, other method', { method, path: '/healthz' });
  }
  await send('ready', { path: '/readyz' });
  await send('openapi', { path: '/openapi.json' });
  await send('openapi', { method: 'HEAD', path: '/openapi.json' });
  await send('docs', { path: '/docs' });
  await send('docs, slash', { path: '/docs/' });
  await send('docs, slashes', { path: '/docs//' });
  for (const asset of [
    'init.js',
    'swagger-ui.css',
    'swagger-ui-bundle.js',
    'favicon-32x32.png',
    'index.html',
    'nope.js',
    '..%2Fpackage.json',
  ]) {
    await send('docs asset', { path: `/docs/${asset}` });
  }
  await send('docs asset', { method: 'POST', path: '/docs/init.js' });

  // ---------------------------------------------------------------- unknown paths and methods
  for (const path of [
    '/nope',
    '/api',
    '/api/',
    '/api/nope',
    '/api/v1',
    '/api/v1/',
    '/api/v1/nope',
    '/API/V1/NOPE',
    '/x/api/v1/y',
    '//api/dns',
    '/api/%64ns',
    '/api/dns/x',
    '/favicon.ico',
    '/caf%C3%A9',
    '//',
  ]) {
    await send('unknown path', { path });
  }
  for (const [method, path] of [
    ['POST', '/nope'],
    ['DELETE', '/api/dns'],
    ['POST', '/api/dns'],
    ['PUT', '/api/batch'],
    ['GET', '/api/batch'],
    ['OPTIONS', '/api/dns'],
    ['OPTIONS', '/api/v1/documents'],
    ['OPTIONS', '/api/v1/documents/1'],
    ['OPTIONS', '/admin'],
    ['OPTIONS', '/admin/api/keys'],
    ['OPTIONS', '/nope'],
    ['PROPFIND', '/api/dns'],
    ['PROPFIND', '/api/v1/documents'],
    ['LINK', '/nope'],
    ['HEAD', '/api/dns'],
    ['HEAD', '/api/batch'],
    ['HEAD', '/nope'],
    ['DELETE', '/api/v1/templates'],
    ['POST', '/api/v1/documents/1'],
    ['PATCH', '/api/v1/documents'],
    ['PUT', '/api/watches'],
  ] as const) {
    await send('method', { method, path });
  }
  await rawSend(
    'absolute form',
    Buffer.from(
      `GET http://${host}${prefix}/healthz HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: abs\r\nConnection: close\r\n\r\n`,
    ),
    'abs',
  );
  await rawSend('bad request line', Buffer.from(`GET ${prefix}/api/dns?domain=x HTTP/1.1 extra\r\nHost: ${host}\r\n\r\n`));
  await rawSend('bad request line, documents', Buffer.from(`GET ${prefix}/api/v1/documents HTTP/9\r\nHost: ${host}\r\n\r\n`));
  await rawSend(
    'headers too large',
    Buffer.from(`GET ${prefix}/api/v1/documents HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  );
  await rawSend(
    'headers too large',
    Buffer.from(`GET ${prefix}/healthz HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  );
  await rawSend('bad header', Buffer.from(`GET ${prefix}/healthz HTTP/1.1\r\nHost: ${host}\r\nBad Header: x\r\n\r\n`));

  // ---------------------------------------------------------------- request ids
  await send('request id, own', { path: '/healthz', headers: [['X-Request-Id', 'abc.DEF_1:2-3']] });
  await send('request id, too long', { path: '/healthz', headers: [['X-Request-Id', 'a'.repeat(129)]] });
  await send('request id, longest', { path: '/healthz', headers: [['X-Request-Id', 'b'.repeat(128)]] });
  await send('request id, bad characters', { path: '/healthz', headers: [['X-Request-Id', 'a b']] });
  await send('request id, empty', { path: '/healthz', headers: [['X-Request-Id', '']] });
  await send('request id, twice', {
    path: '/healthz',
    headers: [
      ['X-Request-Id', 'one'],
      ['X-Request-Id', 'two'],
    ],
  });

  // ---------------------------------------------------------------- keys, made through the admin API when it is on
  const secrets: Record<string, string> = {};
  const ids: Record<string, string> = {};
  if (token !== undefined) {
    for (const [name, body] of [
      ['full', { name: 'full', owner: 'acct_one', daily_limit: 1000 }],
      ['lookup', { name: 'lookup', owner: 'acct_one', scopes: ['lookup'] }],
      ['documents', { name: 'documents', owner: 'acct_two', scopes: ['documents'] }],
      ['tiny', { name: 'tiny', daily_limit: 1 }],
      ['pair', { name: 'pair', daily_limit: 2 }],
      ['other', { name: 'other owner', owner: 'acct_three' }],
    ] as const) {
      const created = await send(`admin create ${name}`, {
        method: 'POST',
        path: '/admin/api/keys',
        headers: [...admin, ...json],
        body: JSON.stringify(body),
      });
      const data = created.json().data as { id: string; key: string };
      secrets[name] = data.key;
      ids[name] = data.id;
      // Keys are listed newest first, then by their random id: each is created in a millisecond of its
      // own, so that two servers list them in one order.
      const answeredAt = Date.now();
      while (Date.now() === answeredAt) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const key = (name: string): Headers => (secrets[name] === undefined ? [] : bearer(secrets[name]!));

  // ---------------------------------------------------------------- interface A: lookups
  const d = target.domain;
  for (const [label, headers] of [
    ['none', []],
    ['basic', [['Authorization', 'Basic dXNlcjpwYXNz']]],
    ['bearer alone', [['Authorization', 'Bearer']]],
    ['bearer space', [['Authorization', 'Bearer ']]],
    ['bearer unknown', bearer('dsr_unknown')],
    ['bearer lower case', [['Authorization', `bearer ${secrets.full ?? 'x'}`]]],
    ['bearer two spaces', [['Authorization', `Bearer  ${secrets.full ?? 'x'}`]]],
    ['bearer trailing', [['Authorization', `Bearer ${secrets.full ?? 'x'} `]]],
    ['bearer extra word', [['Authorization', `Bearer ${secrets.full ?? 'x'} more`]]],
    ['documents key', key('documents')],
  ] as [string, Headers][]) {
    await send(`dns auth ${label}`, { path: `/api/dns?domain=${d}`, headers });
  }
  await send('dns', { path: `/api/dns?domain=${d}`, headers: key('full') });
  await send('dns cached', { path: `/api/dns?domain=${d}`, headers: key('full') });
  await send('dns fresh', { path: `/api/dns?domain=${d}&fresh=1`, headers: key('full') });
  await send('dns fresh true', { path: `/api/dns?domain=${d}&fresh=true`, headers: key('full') });
  await send('dns upper case path', { path: `/API/DNS?domain=${d}`, headers: key('full') });
  await send('dns trailing slash', { path: `/api/dns/?domain=${d}`, headers: key('full') });
  await send('dns head', { method: 'HEAD', path: `/api/dns?domain=${d}`, headers: key('full') });
  await send('dns encoded', { path: `/api/dns?domain=${encodeURIComponent(d)}&x=%ZZ`, headers: key('full') });
  for (const query of [
    '',
    '?domain=',
    '?domain=bad_domain!',
    '?domain=a&domain=b',
    '?domain=http://x.test/',
    '?domain=localhost',
    '?domain=nx.example.test',
    `?domain=${'a'.repeat(300)}.test`,
    '?domain=%FF',
  ]) {
    await send('dns input', { path: `/api/dns${query}`, headers: key('full') });
  }
  for (const query of ['?ip=10.0.0.1', '?ip=192.168.1.1', '?ip=::1', '?ip=nope', '?ip=', '']) {
    await send('ip', { path: `/api/ip${query}`, headers: key('full') });
  }
  for (const query of ['?domain=bad_domain!', '?domain=127.0.0.1', '']) {
    await send('ssl', { path: `/api/ssl${query}`, headers: key('full') });
    await send('whois', { path: `/api/whois${query}`, headers: key('full') });
  }
  await send('usage', { path: '/api/usage', headers: key('full') });
  await send('usage', { path: '/api/usage', headers: key('documents') });
  await send('usage', { path: '/api/usage' });
  await send('usage, head', { method: 'HEAD', path: '/api/usage', headers: key('full') });
  await send('quota, first', { path: `/api/dns?domain=${d}`, headers: key('tiny') });
  await send('quota, spent', { path: `/api/dns?domain=${d}`, headers: key('tiny') });
  await send('quota, spent, bad input', { path: '/api/dns?domain=bad_domain!', headers: key('tiny') });
  await send('usage, spent', { path: '/api/usage', headers: key('tiny') });

  // ---------------------------------------------------------------- batch
  const lookups = (items: unknown[]): string => JSON.stringify({ lookups: items });
  const three = lookups([
    { type: 'dns', domain: d },
    { type: 'ip', ip: '10.0.0.1' },
    { type: 'dns', domain: 'bad_domain!' },
  ]);
  for (const [label, request] of [
    ['no key', { body: three, headers: json }],
    ['no body', { headers: key('full') }],
    ['empty body', { body: '', headers: [...key('full'), ...json] }],
    ['bad JSON', { body: '{', headers: [...key('full'), ...json] }],
    ['array', { body: '[]', headers: [...key('full'), ...json] }],
    ['no lookups', { body: '{}', headers: [...key('full'), ...json] }],
    ['empty lookups', { body: lookups([]), headers: [...key('full'), ...json] }],
    ['bad item', { body: lookups([{ type: 'nope' }, 3]), headers: [...key('full'), ...json] }],
    [
      '101 items',
      { body: lookups(Array.from({ length: 101 }, () => ({ type: 'ip', ip: '10.0.0.1' }))), headers: [...key('full'), ...json] },
    ],
    ['too large', { body: lookups([{ type: 'dns', domain: 'a'.repeat(70_000) }]), headers: [...key('full'), ...json] }],
    ['three', { body: three, headers: [...key('full'), ...json] }],
    ['three, text/plain', { body: three, headers: [...key('full'), ['Content-Type', 'text/plain']] }],
    ['three, no type', { body: three, headers: key('full') }],
    ['three, chunked', { body: three, headers: [...key('full'), ...json], chunked: true }],
    ['three, ndjson', { body: three, headers: [...key('full'), ...json, ['Accept', 'application/x-ndjson']] }],
    [
      'three, ndjson or json',
      { body: three, headers: [...key('full'), ...json, ['Accept', 'application/json, application/x-ndjson']] },
    ],
    [
      'three, ndjson q',
      { body: three, headers: [...key('full'), ...json, ['Accept', 'application/json;q=0.5, application/x-ndjson']] },
    ],
    ['three, documents key', { body: three, headers: [...key('documents'), ...json] }],
    ['three, pair', { body: three, headers: [...key('pair'), ...json] }],
    ['three, pair again', { body: three, headers: [...key('pair'), ...json] }],
    ['three, pair, ndjson', { body: three, headers: [...key('pair'), ...json, ['Accept', 'application/x-ndjson']] }],
    ['fresh item', { body: lookups([{ type: 'dns', domain: d, fresh: true }]), headers: [...key('full'), ...json] }],
  ] as [string, Omit<Request, 'path'>][]) {
    await send(`batch ${label}`, { method: 'POST', path: '/api/batch', ...request });
  }

  // ---------------------------------------------------------------- watches
  const watch = (body: unknown): string => JSON.stringify(body);
  for (const [label, request] of [
    ['no key', { body: watch({ type: 'dns', domain: d, webhook_url: 'https://hooks.example.test/x' }), headers: json }],
    [
      'documents key',
      {
        body: watch({ type: 'dns', domain: d, webhook_url: 'https://hooks.example.test/x' }),
        headers: [...key('documents'), ...json],
      },
    ],
    ['no body', { headers: key('full') }],
    ['bad JSON', { body: '{"type":', headers: [...key('full'), ...json] }],
    ['array', { body: '[1]', headers: [...key('full'), ...json] }],
    ['empty object', { body: '{}', headers: [...key('full'), ...json] }],
    [
      'bad fields',
      {
        body: watch({ type: 'ftp', domain: 'bad_domain!', webhook_url: 'ftp://x', interval_seconds: 5, extra: 1 }),
        headers: [...key('full'), ...json],
      },
    ],
    [
      'private webhook',
      { body: watch({ type: 'dns', domain: d, webhook_url: 'http://127.0.0.1/hook' }), headers: [...key('full'), ...json] },
    ],
    [
      'too large',
      {
        body: watch({ type: 'dns', domain: d, webhook_url: `https://hooks.example.test/${'a'.repeat(70_000)}` }),
        headers: [...key('full'), ...json],
      },
    ],
  ] as [string, Omit<Request, 'path'>][]) {
    await send(`watch create ${label}`, { method: 'POST', path: '/api/watches', ...request });
  }
  const created = await send('watch create', {
    method: 'POST',
    path: '/api/watches',
    headers: [...key('full'), ...json],
    body: watch({ type: 'dns', domain: d, webhook_url: 'https://hooks.example.test/dossier', interval_seconds: 3600 }),
  });
  const watchId = created.status === 201 ? (created.json().data.id as string) : 'wat_0000000000000000';
  const createdSsl = await send('watch create ssl', {
    method: 'POST',
    path: '/api/watches',
    headers: [...key('full'), ...json],
    body: watch({ type: 'ssl', domain: d, webhook_url: 'https://hooks.example.test/ssl' }),
  });
  const sslWatchId = createdSsl.status === 201 ? (createdSsl.json().data.id as string) : 'wat_0000000000000001';
  await send('watch list', { path: '/api/watches', headers: key('full') });
  await send('watch list, other owner', { path: '/api/watches', headers: key('other') });
  await send('watch get', { path: `/api/watches/${watchId}`, headers: key('full') });
  await send('watch get, other owner', { path: `/api/watches/${watchId}`, headers: key('other') });
  await send('watch get, unknown', { path: '/api/watches/wat_0123456789abcdef', headers: key('full') });
  await send('watch get, bad id', { path: '/api/watches/nope', headers: key('full') });
  await send('watch deliveries', { path: `/api/watches/${watchId}/deliveries`, headers: key('full') });
  await send('watch method', { method: 'PUT', path: `/api/watches/${watchId}`, headers: key('full') });
  await send('watch check, other owner', { method: 'POST', path: `/api/watches/${watchId}/check`, headers: key('other') });
  await send('watch check, documents key', { method: 'POST', path: `/api/watches/${watchId}/check`, headers: key('documents') });
  await send('watch check, no key', { method: 'POST', path: `/api/watches/${watchId}/check` });
  await send('watch secret', { method: 'POST', path: `/api/watches/${watchId}/secret`, headers: key('full') });
  await send('watch secret, other owner', { method: 'POST', path: `/api/watches/${watchId}/secret`, headers: key('other') });
  if (token !== undefined) {
    await send('admin key watches', { path: `/admin/api/keys/${ids.full}/watches`, headers: admin });
    await send('admin key watches, unknown key', { path: '/admin/api/keys/key_0123456789abcdef/watches', headers: admin });
    await send('admin remove watch', { method: 'DELETE', path: `/admin/api/watches/${sslWatchId}`, headers: admin });
    await send('admin remove watch, again', { method: 'DELETE', path: `/admin/api/watches/${sslWatchId}`, headers: admin });
    await send('admin remove watch, no auth', { method: 'DELETE', path: `/admin/api/watches/${sslWatchId}` });
  }
  // Last before its removal: the check then runs (or not) in the background, and nothing reads the watch again.
  await send('watch check', { method: 'POST', path: `/api/watches/${watchId}/check`, headers: key('full') });
  await send('watch delete', { method: 'DELETE', path: `/api/watches/${watchId}`, headers: key('full') });
  await send('watch delete again', { method: 'DELETE', path: `/api/watches/${watchId}`, headers: key('full') });
  await send('watch get, deleted', { path: `/api/watches/${watchId}`, headers: key('full') });
  await send('watch check, deleted', { method: 'POST', path: `/api/watches/${watchId}/check`, headers: key('full') });

  // ---------------------------------------------------------------- interface B: documents
  const documentBody = 'name=Launch+notes&prompt=Write+a+tweet+about+remote+work&template_id=33&creativity=0.5';
  const doc = (headers: Headers, body?: string | Buffer, extra: Partial<Request> = {}) => ({
    method: 'POST',
    path: '/api/v1/documents',
    headers,
    body,
    ...extra,
  });
  await send('documents list, none', { path: '/api/v1/documents', headers: key('full') });
  await send('documents list, no key', { path: '/api/v1/documents' });
  await send('documents list, wrong key', { path: '/api/v1/documents', headers: bearer('dsr_wrong') });
  await send('documents list, lookup key', { path: '/api/v1/documents', headers: key('lookup') });
  await send('document create, form', doc([...key('full'), ...form], documentBody));
  await send(
    'document create, JSON',
    doc(
      [...key('full'), ...json],
      JSON.stringify({ name: 'JSON doc', prompt: 'A blog outline about DNS', template_id: 2, creativity: 1 }),
    ),
  );
  await send(
    'document create, JSON charset',
    doc(
      [...key('full'), ['Content-Type', 'application/json; charset=utf-8']],
      JSON.stringify({ name: 'Third', prompt: 'Anything' }),
    ),
  );
  await send(
    'document create, upper type',
    doc([...key('full'), ['Content-Type', 'APPLICATION/JSON']], JSON.stringify({ name: 'Fourth', prompt: 'Anything' })),
  );
  for (const [label, headers, body, extra] of [
    ['no key', form, documentBody, {}],
    ['lookup key', [...key('lookup'), ...form], documentBody, {}],
    ['no body, no type', key('full'), undefined, {}],
    ['empty form', [...key('full'), ...form], '', {}],
    ['JSON, empty', [...key('full'), ...json], '', {}],
    ['JSON type, no body', [...key('full'), ...json], undefined, {}],
    ['bad JSON', [...key('full'), ...json], '{"name":', {}],
    ['JSON array', [...key('full'), ...json], '[1,2]', {}],
    ['JSON string', [...key('full'), ...json], '"name"', {}],
    ['JSON null', [...key('full'), ...json], 'null', {}],
    ['JSON proto', [...key('full'), ...json], '{"name":"x","prompt":"y","__proto__":{"a":1}}', {}],
    ['JSON with BOM', [...key('full'), ...json], `\uFEFF${JSON.stringify({ name: 'BOM', prompt: 'Anything' })}`, {}],
    [
      'JSON, wrong fields',
      [...key('full'), ...json],
      JSON.stringify({ name: '', prompt: 'x'.repeat(3000), creativity: 0.3, template_id: 99, extra: true }),
      {},
    ],
    ['text/plain', [...key('full'), ['Content-Type', 'text/plain']], documentBody, {}],
    ['multipart', [...key('full'), ['Content-Type', 'multipart/form-data; boundary=x']], '--x--', {}],
    ['bad type', [...key('full'), ['Content-Type', 'application/json; charset']], '{}', {}],
    ['type garbage', [...key('full'), ['Content-Type', '???']], '{}', {}],
    ['form, no type', key('full'), documentBody, {}],
    ['too large form', [...key('full'), ...form], `name=x&prompt=${'a'.repeat(70_000)}`, {}],
    ['too large JSON', [...key('full'), ...json], JSON.stringify({ name: 'x', prompt: 'a'.repeat(70_000) }), {}],
    ['too large, declared', [...key('full'), ...json, ['Content-Length', '70000']], '{}', {}],
    ['form nested', [...key('full'), ...form], 'name[a]=1&prompt=x', {}],
    ['form dotted', [...key('full'), ...form], 'name=Dotted&prompt=x&template.id=3', {}],
    ['form repeated', [...key('full'), ...form], 'name=a&name=b&prompt=x', {}],
    ['form bad escape', [...key('full'), ...form], 'name=%E0%A4%A&prompt=x', {}],
    ['form plus', [...key('full'), ...form], 'name=a+b%20c&prompt=x&favorite=', {}],
    ['form chunked', [...key('full'), ...form], 'name=Chunked&prompt=x', { chunked: true }],
    [
      'gzip JSON',
      [...key('full'), ...json, ['Content-Encoding', 'gzip']],
      gzipSync(JSON.stringify({ name: 'Zipped', prompt: 'x' })),
      {},
    ],
    ['unknown encoding', [...key('full'), ...json, ['Content-Encoding', 'compress']], '{}', {}],
    [
      'latin1 charset',
      [...key('full'), ['Content-Type', 'application/x-www-form-urlencoded; charset=latin1']],
      'name=Caf%E9&prompt=x',
      {},
    ],
    ['SSE, invalid', [...key('full'), ...json, ['Accept', 'text/event-stream']], '{}', {}],
    ['SSE, no key', [...json, ['Accept', 'text/event-stream']], '{}', {}],
  ] as [string, Headers, string | Buffer | undefined, Partial<Request>][]) {
    await send(`document create, ${label}`, doc(headers, body, extra));
  }
  await send(
    'document create, SSE',
    doc(
      [...key('full'), ...form, ['Accept', 'text/event-stream']],
      'name=Streamed&prompt=Write+a+tweet+about+DNS&template_id=33',
    ),
  );
  await send(
    'document create, SSE q0',
    doc([...key('full'), ...form, ['Accept', 'text/event-stream;q=0, application/json']], 'name=NotStreamed&prompt=x'),
  );
  await send('documents list', { path: '/api/v1/documents', headers: key('full') });
  await send('documents list, documents key', { path: '/api/v1/documents', headers: key('documents') });
  for (const query of [
    '?page=2&per_page=2',
    '?favorite=1',
    '?favorite=true&search=doc&search_by=name',
    '?sort_by=name&sort=asc',
    '?per_page=1&page=3&template_id=33',
    '?favorite=maybe&sort_by=x&per_page=0&page=0',
    '?search=%25',
    '?unknown=1',
    '?page=99',
  ]) {
    await send('documents list, query', { path: `/api/v1/documents${query}`, headers: key('full') });
  }
  await send('documents list, trailing slash', { path: '/api/v1/documents/?per_page=1', headers: key('full') });
  await send('documents list, forwarded', {
    path: '/api/v1/documents?per_page=1',
    headers: [...key('full'), ['X-Forwarded-Proto', 'https'], ['X-Forwarded-Host', 'public.example']],
  });
  for (const path of [
    '/api/v1/documents/1',
    '/api/v1/documents/01',
    '/api/v1/documents/%31',
    '/api/v1/documents/1/',
    '/API/V1/DOCUMENTS/1',
    '/api/v1/documents/999',
    '/api/v1/documents/abc',
    '/api/v1/documents/0',
    '/api/v1/documents/99999999999999999999',
    '/api/v1/documents/1/x',
  ]) {
    await send('document get', { path, headers: key('full') });
  }
  await send('document get, other owner', { path: '/api/v1/documents/1', headers: key('documents') });
  await send('document get, no key', { path: '/api/v1/documents/1' });
  await send('document get, head', { method: 'HEAD', path: '/api/v1/documents/1', headers: key('full') });
  for (const [method, headers, body] of [
    ['PATCH', form, 'favorite=1'],
    ['PUT', json, JSON.stringify({ name: 'Renamed', result: 'Shorter text.' })],
    ['PATCH', json, JSON.stringify({ favorite: 'maybe', name: '' })],
    ['PATCH', json, '{}'],
    ['PATCH', [], undefined],
    ['PATCH', [['Content-Type', 'text/plain']], 'x'],
    ['PATCH', json, JSON.stringify({ result: 'a'.repeat(20_481) })],
  ] as [string, Headers, string | undefined][]) {
    await send('document update', { method, path: '/api/v1/documents/1', headers: [...key('full'), ...headers], body });
  }
  await send('document update, missing', {
    method: 'PATCH',
    path: '/api/v1/documents/999',
    headers: [...key('full'), ...form],
    body: 'favorite=1',
  });
  await send('document update, missing, bad body', {
    method: 'PATCH',
    path: '/api/v1/documents/999',
    headers: [...key('full'), ['Content-Type', 'text/plain']],
    body: 'x',
  });
  // An unknown document is a 404 whatever its fields; a body that cannot be read is refused before the id is.
  await send('document update, missing, bad fields', {
    method: 'PATCH',
    path: '/api/v1/documents/999',
    headers: [...key('full'), ...json],
    body: JSON.stringify({ favorite: 'maybe' }),
  });
  await send('document update, bad id, bad body', {
    method: 'PATCH',
    path: '/api/v1/documents/abc',
    headers: [...key('full'), ['Content-Type', 'text/plain']],
    body: 'x',
  });
  await send('document delete', { method: 'DELETE', path: '/api/v1/documents/2', headers: key('full') });
  await send('document delete again', { method: 'DELETE', path: '/api/v1/documents/2', headers: key('full') });
  await send('document delete, bad id', { method: 'DELETE', path: '/api/v1/documents/x', headers: key('full') });
  await send('templates', { path: '/api/v1/templates', headers: key('full') });
  await send('templates, lookup key', { path: '/api/v1/templates', headers: key('lookup') });
  await send('templates, no key', { path: '/api/v1/templates' });

  // ---------------------------------------------------------------- MCP (docs/contract.md §13)
  const rpc = (method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const mcp = (name: string, body: string, headers: Headers = key('full')) =>
    send(`mcp, ${name}`, {
      method: 'POST',
      path: '/mcp',
      headers: [...json, ['Accept', 'application/json, text/event-stream'], ...headers],
      body,
    });
  const client = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'corpus', version: '1' } };
  await mcp('no key', rpc('tools/list'), []);
  await mcp('initialize', rpc('initialize', client));
  await mcp('initialized', '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await mcp('tools of a lookup key', rpc('tools/list'), key('lookup'));
  await mcp('a tool call', rpc('tools/call', { name: 'templates_list', arguments: {} }));
  await mcp(
    'a refused lookup (counts nothing)',
    rpc('tools/call', { name: 'dns_lookup', arguments: { domain: 'not a domain' } }),
  );
  await mcp('unknown tool', rpc('tools/call', { name: 'nope', arguments: {} }));
  await mcp('a resource', rpc('resources/read', { uri: 'dossier://templates' }));
  await mcp('not JSON', '{');
  await mcp('another origin', rpc('ping'), [...key('full'), ['Origin', 'https://evil.example']]);
  await send('mcp, as an event stream', {
    method: 'POST',
    path: '/mcp',
    headers: [...json, ['Accept', 'text/event-stream'], ...key('full')],
    body: rpc('ping'),
  });
  await send('mcp stream', { path: '/mcp', headers: key('full') });
  await send('mcp session end', { method: 'DELETE', path: '/mcp', headers: key('full') });

  // ---------------------------------------------------------------- the panel and its API
  const page = await send('panel', { path: '/admin' });
  void page;
  await send('panel, slash', { path: '/admin/' });
  await send('panel, upper', { path: '/ADMIN' });
  for (const asset of ['admin.css', 'admin.js', 'icon.svg', 'nope.js'])
    await send('panel asset', { path: `/admin/assets/${asset}` });
  await send('panel asset, post', { method: 'POST', path: '/admin/assets/admin.js' });
  if (token !== undefined) {
    await send('panel key, no session', { path: `/admin/keys/${ids.full}` });
    await send('sign-in, wrong', { method: 'POST', path: '/admin/sign-in', headers: [...form, ...origin], body: 'token=wrong' });
    await send('sign-in, other origin', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: [...form, ['Origin', 'http://evil.example']],
      body: `token=${token}`,
    });
    await send('sign-in, JSON', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: [...json, ...origin],
      body: JSON.stringify({ token: 'wrong-again' }),
    });
    const signedIn = await send('sign-in', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: [...form, ...origin],
      body: `token=${encodeURIComponent(token)}`,
    });
    const cookie = signedIn.headers.find(([name]) => name === 'set-cookie')?.[1].split(';')[0] ?? 'dossier_admin=x';
    const session: Headers = [['Cookie', cookie]];
    await send('sign-in, no origin', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: form,
      body: `token=${encodeURIComponent(token)}`,
    });
    await send('sign-in, forwarded https', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: [...form, ['X-Forwarded-Proto', 'https'], ['Origin', `https://${host}`]],
      body: `token=${encodeURIComponent(token)}`,
    });
    await send('panel, signed in', { path: '/admin', headers: session });
    await send('panel, bad cookie', { path: '/admin', headers: [['Cookie', 'dossier_admin=forged']] });
    await send('panel key', { path: `/admin/keys/${ids.full}`, headers: session });
    await send('panel key, unknown', { path: '/admin/keys/key_0123456789abcdef', headers: session });
    await send('panel key, encoded', { path: `/admin/keys/${encodeURIComponent(ids.tiny!)}`, headers: session });
    await send('admin list, cookie', { path: '/admin/api/keys', headers: session });
    await send('admin list, no auth', { path: '/admin/api/keys' });
    await send('admin list, wrong bearer', { path: '/admin/api/keys', headers: bearer('wrong') });
    await send('admin list, basic', { path: '/admin/api/keys', headers: [['Authorization', 'Basic eDp5']] });
    await send('admin list, empty bearer', { path: '/admin/api/keys', headers: [['Authorization', 'Bearer ']] });
    await send('admin list, bearer', { path: '/admin/api/keys', headers: admin });
    await send('admin list, bearer lower', { path: '/admin/api/keys', headers: [['Authorization', `bearer ${token}`]] });
    await send('admin list, bearer and cookie', { path: '/admin/api/keys', headers: [...bearer('wrong'), ...session] });
    await send('admin create, cookie, no origin', {
      method: 'POST',
      path: '/admin/api/keys',
      headers: [...session, ...json],
      body: '{"name":"x"}',
    });
    await send('admin create, cookie, origin', {
      method: 'POST',
      path: '/admin/api/keys',
      headers: [...session, ...json, ...origin],
      body: '{"name":"by cookie"}',
    });
    await send('admin create, cookie, other origin', {
      method: 'POST',
      path: '/admin/api/keys',
      headers: [...session, ...json, ['Origin', 'http://evil.example']],
      body: '{"name":"x"}',
    });
    for (const [label, body] of [
      ['empty', ''],
      ['bad JSON', '{'],
      ['array', '[]'],
      ['no name', '{}'],
      [
        'bad fields',
        JSON.stringify({ name: '', owner: 'bad owner!', scopes: ['nope'], daily_limit: 0, expires_at: 'yesterday', extra: 1 }),
      ],
      ['null fields', JSON.stringify({ name: 'nulls', owner: null, scopes: null, daily_limit: null, expires_at: null })],
      ['expired', JSON.stringify({ name: 'past', expires_at: '2000-01-01' })],
      ['too large', JSON.stringify({ name: 'a'.repeat(70_000) })],
    ] as const) {
      await send(`admin create, ${label}`, { method: 'POST', path: '/admin/api/keys', headers: [...admin, ...json], body });
    }
    await send('admin create, text', {
      method: 'POST',
      path: '/admin/api/keys',
      headers: [...admin, ['Content-Type', 'text/plain']],
      body: '{"name":"as text"}',
    });
    const id = ids.other!;
    for (const [label, body] of [
      ['name', JSON.stringify({ name: 'renamed', daily_limit: 50 })],
      ['bad', JSON.stringify({ owner: 'x', scopes: [] })],
      ['null', JSON.stringify({ daily_limit: null, expires_at: null })],
      ['empty', ''],
    ] as const) {
      await send(`admin update, ${label}`, {
        method: 'PATCH',
        path: `/admin/api/keys/${id}`,
        headers: [...admin, ...json],
        body,
      });
    }
    await send('admin update, unknown', {
      method: 'PATCH',
      path: '/admin/api/keys/key_0123456789abcdef',
      headers: [...admin, ...json],
      body: '{"name":"x"}',
    });
    await send('admin update, unknown, bad', {
      method: 'PATCH',
      path: '/admin/api/keys/key_0123456789abcdef',
      headers: [...admin, ...json],
      body: '{"nope":1}',
    });
    await send('admin usage', { path: `/admin/api/keys/${ids.full}/usage?days=3`, headers: admin });
    for (const query of ['', '?days=0', '?days=91', '?days=abc', '?days=1&days=2', '?days=90']) {
      await send('admin usage, days', { path: `/admin/api/keys/${ids.pair}/usage${query}`, headers: admin });
    }
    await send('admin usage, unknown', { path: '/admin/api/keys/key_0123456789abcdef/usage', headers: admin });
    await send('admin roll', {
      method: 'POST',
      path: `/admin/api/keys/${id}/roll`,
      headers: [...admin, ...json],
      body: '{"grace_seconds":60}',
    });
    await send('admin roll, bad', {
      method: 'POST',
      path: `/admin/api/keys/${id}/roll`,
      headers: [...admin, ...json],
      body: '{"grace_seconds":-1}',
    });
    await send('admin roll, no body', { method: 'POST', path: `/admin/api/keys/${id}/roll`, headers: admin });
    await send('admin revoke, body', {
      method: 'POST',
      path: `/admin/api/keys/${id}/revoke`,
      headers: [...admin, ...json],
      body: '{"x":1}',
    });
    await send('admin revoke', { method: 'POST', path: `/admin/api/keys/${id}/revoke`, headers: admin });
    await send('admin revoke, twice', { method: 'POST', path: `/admin/api/keys/${id}/revoke`, headers: admin });
    await send('admin revoke, unknown', { method: 'POST', path: '/admin/api/keys/key_0123456789abcdef/revoke', headers: admin });
    await send('admin revoke, cookie', {
      method: 'POST',
      path: `/admin/api/keys/${ids.pair}/revoke`,
      headers: [...session, ...origin],
    });
    await send('revoked key', { path: `/api/dns?domain=${d}`, headers: key('other') });
    await send('admin method', { method: 'PUT', path: '/admin/api/keys', headers: admin });
    await send('admin method', { method: 'DELETE', path: `/admin/api/keys/${id}`, headers: admin });
    await send('admin unknown', { path: '/admin/api/nope', headers: admin });
    await send('admin unknown, no auth', { path: '/admin/api/nope' });
    await send('admin list, after', { path: '/admin/api/keys', headers: admin });
    await send('panel, after', { path: '/admin', headers: session });
    await send('metrics, no auth', { path: '/metrics' });
    await send('metrics, basic', { path: '/metrics', headers: [['Authorization', 'Basic eDp5']] });
    await send('metrics, empty bearer', { path: '/metrics', headers: [['Authorization', 'Bearer']] });
    await send('metrics, cookie', { path: '/metrics', headers: session });
    await send('metrics', { path: '/metrics', headers: admin });
    await send('metrics, post', { method: 'POST', path: '/metrics', headers: admin });
    await send('sign-out, no origin', { method: 'POST', path: '/admin/sign-out', headers: session });
    await send('sign-out', { method: 'POST', path: '/admin/sign-out', headers: [...session, ...origin] });
    await send('panel, signed out', { path: '/admin', headers: session });
    await send('admin list, signed out', { path: '/admin/api/keys', headers: session });
    // Last: wrong tokens lock this address out for a minute.
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      await send(`sign-in, wrong ${attempt}`, {
        method: 'POST',
        path: '/admin/sign-in',
        headers: [...form, ...origin],
        body: 'token=wrong',
      });
    }
    await send('sign-in, locked', {
      method: 'POST',
      path: '/admin/sign-in',
      headers: [...form, ...origin],
      body: `token=${encodeURIComponent(token)}`,
    });
    await send('admin list, locked', { path: '/admin/api/keys', headers: admin });
    await send('metrics, locked', { path: '/metrics', headers: admin });
  } else {
    await send('admin list, off', { path: '/admin/api/keys', headers: bearer('whatever') });
    await send('admin sign-in, off', { method: 'POST', path: '/admin/sign-in', headers: form, body: 'token=x' });
    await send('panel key, off', { path: '/admin/keys/key_0123456789abcdef' });
    await send('metrics, off', { path: '/metrics', headers: bearer('whatever') });
  }

  // ---------------------------------------------------------------- edge: what a framework or runtime may answer itself
  // (Fastify a malformed escape in the path; a fetch runtime a target that is no URL, or a request without Host).
  for (const path of ['/a{b}', '/%']) await send('edge: unknown path', { path });
  await send('edge: options, asterisk', { method: 'OPTIONS', path: '*' });
  await send('edge: no Host', { path: '/healthz', noHost: true });
  await send('edge: no Host, documents', { path: '/api/v1/documents', noHost: true });
  await rawSend('edge: HTTP/1.0', Buffer.from(`GET ${prefix}/healthz HTTP/1.0\r\nX-Request-Id: ten\r\n\r\n`), 'ten');
  await send('edge: documents list, no Host', { path: '/api/v1/documents?per_page=10', headers: key('full'), noHost: true });
  return entries;
}

/** An answer with its header lines named in lower case and sorted: a framework may write names in lower case. */
export function headersSorted(answer: string): string {
  const end = answer.indexOf('\n\n');
  const [status, ...headers] = answer.slice(0, end).split('\n');
  const named = headers.map((line) => {
    const colon = line.indexOf(':');
    return `${line.slice(0, colon).toLowerCase()}:${line.slice(colon + 1)}`;
  });
  return [status, ...named.sort()].join('\n') + answer.slice(end);
}

/**
 * The first entry where `actual` differs from `expected` (the status line, each header by name but in
 * any case and order, the body), as a message; `undefined` when they agree.
 */
export function corpusDifference(expected: CorpusEntry[], actual: CorpusEntry[]): string | undefined {
  for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
    const [want, got] = [expected[i], actual[i]];
    if (want?.name !== got?.name || headersSorted(want?.answer ?? '') !== headersSorted(got?.answer ?? '')) {
      return `entry ${i} (${want?.name ?? '-'}):\n--- expected\n${want?.answer ?? ''}\n--- actual (${got?.name ?? '-'})\n${got?.answer ?? ''}`;
    }
  }
  return undefined;
}

/** What the corpus recorded through one server: its answers, and the request log lines it wrote. */
export interface Recorded {
  entries: CorpusEntry[];
  logs: Record<string, unknown>[];
}

/**
 * The request log lines among a server's JSON log lines, without their time and duration, and with the
 * ids that vary from run to run (generated request ids, key ids) named in the order they appear.
 */
export function requestLogs(lines: string[]): Record<string, unknown>[] {
  const keys = new Map<unknown, string>();
  return lines
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request')
    .map(({ time: _time, ms: _ms, ...line }) => ({
      ...line,
      request_id: /^[0-9a-f]{12}-/.test(String(line.request_id)) ? '<generated>' : line.request_id,
      key_id:
        line.key_id === null ? null : (keys.get(line.key_id) ?? keys.set(line.key_id, `<key-${keys.size + 1}>`).get(line.key_id)),
    }));
}

/**
 * What a framework or runtime answers itself, before Dossier sees the request, so that its answer is not
 * Dossier's: a fetch runtime has no Request for a target that is no URL (`*`), nor without a Host.
 * (Fastify's refusal of a malformed escape is handed to Dossier with `frameworkErrors`, and the fetch
 * mount is given the target as sent.)
 */
const FRAMEWORK_ANSWERS: Record<'koa' | 'express' | 'fastify' | 'fetch', RegExp[]> = {
  koa: [],
  express: [],
  fastify: [],
  fetch: [/^edge: options/, /^edge: .*no Host/, /^edge: HTTP\/1\.0/],
};

/**
 * `recorded` without what `adapter`'s framework answers itself, nor its log lines; under a prefix, also
 * without `OPTIONS *`, which is no path under it (the app answers it).
 */
export function dossiersAnswers(recorded: Recorded, adapter: keyof typeof FRAMEWORK_ANSWERS, prefixed = false): Recorded {
  const answeredElsewhere = [...FRAMEWORK_ANSWERS[adapter], ...(prefixed ? [/^edge: options, asterisk/] : [])];
  const own = (entry: CorpusEntry): boolean => !answeredElsewhere.some((pattern) => pattern.test(entry.name));
  const theirs = new Set(recorded.entries.filter((entry) => !own(entry)).map((entry) => entry.requestId));
  return {
    entries: recorded.entries.filter(own),
    logs: recorded.logs.filter((line) => !theirs.has(line.request_id as string)),
  };
}
