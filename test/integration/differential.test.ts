import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { serve, SERVER_PROGRAMS, stop, type Served } from '../support/cli.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { leaveStream } from '../support/stream-client.js';
import { exchange, headersSorted, Normalizer, type RawAnswer } from '../support/wire-corpus.js';

const TOKEN = 'differential-admin-token-0123456789abcdefgh';
const PREFIX = '/dossier';

/**
 * One request of the corpus. Its path (after the mount's prefix, unless `outside`), headers and body
 * may name what the run made: `{key:full}`, `{key:lookup}`, `{key:documents}` (secrets), `{id:other}`
 * (a key's id), `{doc}` (a document), `{watch}`, `{watch2}`, `{cookie}` (a panel session), `{origin}`,
 * `{host}`, and `{run}`: a word of the run's own, in the name of every key it makes, by which it lists
 * them (the store is shared with the other mounts, whose keys are not the run's to compare).
 */
interface Probe {
  name: string;
  method?: string;
  path: string;
  headers?: [string, string][];
  body?: string | Buffer;
  /** A valid request of a route of /openapi.json (every one of them has one). */
  valid?: boolean;
  /**
   * Its route needs a server outside (a TLS or whois server): the input is refused before any
   * connection (the machine has only loopback), so that the answer is the same on every run.
   */
  upstream?: boolean;
  /** The status a valid request of its route answers when that is no 2xx or 3xx (`GET /mcp`: 405, no SSE stream). */
  status?: number;
  /** The path is sent as is, without the mount's prefix (a path outside it, under a prefix). */
  outside?: boolean;
  /** The whole request, as bytes, instead of one built from the fields above. */
  raw?: (path: string, host: string) => Buffer;
}

const auth = (name: string): [string, string] => ['Authorization', `Bearer {key:${name}}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const FORM: [string, string] = ['Content-Type', 'application/x-www-form-urlencoded'];
const MCP_ACCEPT: [string, string] = ['Accept', 'application/json, text/event-stream'];
const rpc = (method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const MCP_CLIENT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'differential', version: '1' } };
const ADMIN: [string, string] = ['Authorization', `Bearer ${TOKEN}`];
const ORIGIN: [string, string] = ['Origin', '{origin}'];
const three = JSON.stringify({
  lookups: [
    { type: 'dns', domain: 'example.test' },
    { type: 'ip', ip: '10.0.0.1' },
    { type: 'dns', domain: 'bad_domain!' },
  ],
});
/** A JSON body of more than 64 KiB once decoded, and small compressed: a bomb. */
const bomb = JSON.stringify({ lookups: [{ type: 'dns', domain: 'a'.repeat(200_000) }] });

/**
 * The corpus: every route with valid input, then hostile requests. One line a request: a request
 * added here is sent to every mount, at the root and under the prefix, and compared.
 */
const CORPUS: Probe[] = [
  // ------------------------------------------------ every route of /openapi.json, valid
  {
    name: 'admin key create',
    method: 'POST',
    path: '/admin/api/keys',
    headers: [ADMIN, JSON_TYPE],
    body: '{"name":"{run} made","owner":"acct_made","scopes":["lookup"]}',
    valid: true,
  },
  { name: 'index', path: '/', valid: true },
  { name: 'health', path: '/healthz', valid: true },
  { name: 'ready', path: '/readyz', valid: true },
  { name: 'openapi', path: '/openapi.json', valid: true },
  { name: 'docs', path: '/docs', valid: true },
  { name: 'docs asset', path: '/docs/init.js', valid: true },
  { name: 'metrics', path: '/metrics', headers: [ADMIN], valid: true },
  { name: 'dns', path: '/api/dns?domain=example.test', headers: [auth('full')], valid: true },
  { name: 'ip', path: '/api/ip?ip=10.0.0.1', headers: [auth('full')], valid: true },
  { name: 'ssl', path: '/api/ssl?domain=127.0.0.1', headers: [auth('full')], valid: true, upstream: true },
  { name: 'whois', path: '/api/whois?domain=bad_domain!', headers: [auth('full')], valid: true, upstream: true },
  { name: 'usage', path: '/api/usage', headers: [auth('full')], valid: true },
  { name: 'batch', method: 'POST', path: '/api/batch', headers: [auth('full'), JSON_TYPE], body: three, valid: true },
  {
    name: 'batch ndjson',
    method: 'POST',
    path: '/api/batch',
    headers: [auth('full'), JSON_TYPE, ['Accept', 'application/x-ndjson']],
    body: three,
  },
  {
    name: 'document create',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE],
    body: '{"name":"first","prompt":"a garden"}',
    valid: true,
  },
  {
    name: 'document create, stream',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE, ['Accept', 'text/event-stream']],
    body: '{"name":"streamed","prompt":"a river"}',
  },
  {
    name: 'document create, form',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), FORM],
    body: 'name=form&prompt=bees',
  },
  { name: 'document list', path: '/api/v1/documents?per_page=10', headers: [auth('documents')], valid: true },
  { name: 'document get', path: '/api/v1/documents/{doc}', headers: [auth('documents')], valid: true },
  {
    name: 'document patch',
    method: 'PATCH',
    path: '/api/v1/documents/{doc}',
    headers: [auth('documents'), JSON_TYPE],
    body: '{"favorite":true}',
    valid: true,
  },
  {
    name: 'document put',
    method: 'PUT',
    path: '/api/v1/documents/{doc}',
    headers: [auth('documents'), JSON_TYPE],
    body: '{"name":"renamed"}',
    valid: true,
  },
  { name: 'templates', path: '/api/v1/templates', headers: [auth('documents')], valid: true },
  {
    name: 'watch create',
    method: 'POST',
    path: '/api/watches',
    headers: [auth('full'), JSON_TYPE],
    body: '{"type":"dns","domain":"example.test","webhook_url":"https://hooks.example.test/x"}',
    valid: true,
  },
  { name: 'watch list', path: '/api/watches', headers: [auth('full')], valid: true },
  { name: 'watch get', path: '/api/watches/{watch}', headers: [auth('full')], valid: true },
  { name: 'watch deliveries', path: '/api/watches/{watch}/deliveries', headers: [auth('full')], valid: true },
  { name: 'watch secret', method: 'POST', path: '/api/watches/{watch}/secret', headers: [auth('full')], valid: true },
  { name: 'admin keys', path: '/admin/api/keys?search={run}', headers: [ADMIN], valid: true },
  { name: 'admin key usage', path: '/admin/api/keys/{id:other}/usage', headers: [ADMIN], valid: true },
  { name: 'admin key watches', path: '/admin/api/keys/{id:full}/watches', headers: [ADMIN], valid: true },
  {
    name: 'admin key update',
    method: 'PATCH',
    path: '/admin/api/keys/{id:other}',
    headers: [ADMIN, JSON_TYPE],
    body: '{"name":"{run} renamed"}',
    valid: true,
  },
  {
    name: 'admin key roll',
    method: 'POST',
    path: '/admin/api/keys/{id:other}/roll',
    headers: [ADMIN, JSON_TYPE],
    body: '{"grace_seconds":60}',
    valid: true,
  },
  { name: 'admin key revoke', method: 'POST', path: '/admin/api/keys/{id:other}/revoke', headers: [ADMIN], valid: true },
  { name: 'panel', path: '/admin?search={run}', headers: [['Cookie', '{cookie}']], valid: true },
  { name: 'panel key', path: '/admin/keys/{id:full}', headers: [['Cookie', '{cookie}']] },
  { name: 'admin keys, cookie', path: '/admin/api/keys?search={run}', headers: [['Cookie', '{cookie}']] },
  { name: 'watch check', method: 'POST', path: '/api/watches/{watch}/check', headers: [auth('full')], valid: true },
  {
    name: 'watch create, second',
    method: 'POST',
    path: '/api/watches',
    headers: [auth('full'), JSON_TYPE],
    body: '{"type":"ssl","domain":"example.test","webhook_url":"https://hooks.example.test/y"}',
  },
  { name: 'admin watch delete', method: 'DELETE', path: '/admin/api/watches/{watch2}', headers: [ADMIN], valid: true },
  { name: 'watch delete', method: 'DELETE', path: '/api/watches/{watch}', headers: [auth('full')], valid: true },
  { name: 'document delete', method: 'DELETE', path: '/api/v1/documents/{doc}', headers: [auth('documents')], valid: true },

  // ------------------------------------------------ MCP (CONTRACT §13)
  {
    name: 'mcp initialize',
    method: 'POST',
    path: '/mcp',
    headers: [auth('full'), JSON_TYPE, MCP_ACCEPT],
    body: rpc('initialize', MCP_CLIENT),
    valid: true,
  },
  {
    name: 'mcp tool call',
    method: 'POST',
    path: '/mcp',
    headers: [auth('full'), JSON_TYPE, MCP_ACCEPT],
    body: rpc('tools/call', { name: 'templates_list', arguments: {} }),
  },
  {
    name: 'mcp lookup tool, NUL',
    method: 'POST',
    path: '/mcp',
    headers: [auth('full'), JSON_TYPE, MCP_ACCEPT],
    body: rpc('tools/call', { name: 'dns_lookup', arguments: { domain: 'a\u0000b.test' } }),
  },
  {
    name: 'mcp, two Authorization',
    method: 'POST',
    path: '/mcp',
    headers: [auth('full'), auth('lookup'), JSON_TYPE, MCP_ACCEPT],
    body: rpc('tools/list'),
  },
  { name: 'mcp, not JSON', method: 'POST', path: '/mcp', headers: [auth('full'), JSON_TYPE, MCP_ACCEPT], body: '{' },
  { name: 'mcp stream', path: '/mcp', headers: [auth('full')], valid: true, status: 405 },
  { name: 'mcp session end', method: 'DELETE', path: '/mcp', headers: [auth('full')], valid: true, status: 405 },

  // ------------------------------------------------ methods
  ...['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'TRACE', 'LINK'].map((method) => ({
    name: `method ${method}`,
    method,
    path: '/healthz',
  })),
  // The mount itself: `/` at the root, the bare prefix (`/dossier`) under it.
  ...['PROPFIND', 'GET', 'DELETE'].map((method) => ({
    name: `method ${method}, the mount itself`,
    path: '',
    raw: (path: string, host: string) =>
      Buffer.from(`${method} ${path || '/'} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`),
  })),
  { name: 'method HEAD', method: 'HEAD', path: '/api/dns?domain=example.test', headers: [auth('full')] },
  { name: 'method OPTIONS documents', method: 'OPTIONS', path: '/api/v1/documents' },
  { name: 'method lower case', method: 'get', path: '/healthz' },

  // ------------------------------------------------ headers
  {
    name: 'two Authorization, lookups',
    path: '/api/dns?domain=example.test',
    headers: [auth('full'), ['Authorization', 'Bearer x']],
  },
  { name: 'two Authorization, documents', path: '/api/v1/documents', headers: [auth('documents'), auth('documents')] },
  { name: 'two Authorization, admin', path: '/admin/api/keys', headers: [ADMIN, ['Authorization', 'Bearer x']] },
  { name: 'Authorization list', path: '/api/usage', headers: [['Authorization', 'Bearer {key:full}, Bearer x']] },
  { name: 'usage after two Authorization', path: '/api/usage', headers: [auth('full')] },
  {
    name: 'two Content-Type',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE, FORM],
    body: '{"name":"x","prompt":"y"}',
  },
  {
    name: 'two X-Request-Id',
    path: '/healthz',
    headers: [
      ['X-Request-Id', 'one'],
      ['X-Request-Id', 'two'],
    ],
  },
  { name: 'bad X-Request-Id', path: '/healthz', headers: [['X-Request-Id', 'a b']] },
  { name: 'Accept nothing JSON', path: '/', headers: [['Accept', 'image/png']] },
  { name: 'lower-case bearer', path: '/api/usage', headers: [['authorization', 'bearer {key:full}']] },

  // ------------------------------------------------ encodings and bodies
  ...(
    [
      ['gzip', gzipSync(three)],
      ['deflate', deflateSync(three)],
      ['br', brotliCompressSync(three)],
      ['gzip bomb', gzipSync(bomb)],
      ['zstd', Buffer.from(three)],
      ['identity', Buffer.from(three)],
    ] as const
  ).map(([encoding, body]) => ({
    name: `batch ${encoding}`,
    method: 'POST',
    path: '/api/batch',
    headers: [auth('full'), JSON_TYPE, ['Content-Encoding', encoding.split(' ')[0]!]] as [string, string][],
    body,
  })),
  { name: 'batch too large', method: 'POST', path: '/api/batch', headers: [auth('full'), JSON_TYPE], body: bomb },
  {
    name: 'document too large',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE],
    body: JSON.stringify({ name: 'x', prompt: 'y'.repeat(70_000) }),
  },
  {
    name: 'admin too large',
    method: 'POST',
    path: '/admin/api/keys',
    headers: [ADMIN, JSON_TYPE],
    body: JSON.stringify({ name: 'y'.repeat(70_000) }),
  },
  {
    name: 'NUL name',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE],
    body: '{"name":"a\\u0000","prompt":"x"}',
  },
  {
    name: 'NUL form',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), FORM],
    body: 'name=a%00b&prompt=x',
  },
  { name: 'NUL lookup', path: '/api/dns?domain=a%00b.test', headers: [auth('full')] },
  {
    name: 'lone surrogate',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE],
    body: '{"name":"sur\\ud800","prompt":"x"}',
  },
  { name: 'bad JSON', method: 'POST', path: '/api/v1/documents', headers: [auth('documents'), JSON_TYPE], body: '{' },
  {
    name: 'bad UTF-8',
    method: 'POST',
    path: '/api/v1/documents',
    headers: [auth('documents'), JSON_TYPE],
    body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]),
  },
  {
    name: 'text body',
    method: 'POST',
    path: '/api/watches',
    headers: [auth('full'), ['Content-Type', 'text/plain']],
    body: '{}',
  },

  // ------------------------------------------------ paths
  ...[
    '/HEALTHZ',
    '/healthz/',
    '/api/../healthz',
    '/./healthz',
    '/api/%2e%2e/healthz',
    '/api/%2E%2E/healthz',
    '/api/dns/..',
    '/admin/../healthz',
    '//healthz',
    '/api%2Fdns',
    '/%zz',
    '/%C0%AE%C0%AE/',
    '/caf%C3%A9',
    '/api/v1/documents/../templates',
    '/a{b}',
  ].map((path) => ({ name: `path ${path}`, path })),

  // ------------------------------------------------ what HTTP/1.1 gives no way to read (their own ids: a fetch runtime refuses them before any code reads X-Request-Id)
  ...['GET', 'OPTIONS'].map((method) => ({
    name: `target * (${method})`,
    path: '*',
    raw: (path: string, host: string) => Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  })),
  {
    name: 'backslash in the path',
    path: '/api\\dns?domain=example.test',
    raw: (path, host) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  },
  {
    name: 'Host that names no host',
    path: '/healthz',
    raw: (path) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n`),
  },

  // ------------------------------------------------ cookies
  { name: 'forged cookie', path: '/admin/api/keys?search={run}', headers: [['Cookie', 'dossier_admin=forged']] },
  {
    name: 'two cookies',
    path: '/admin/api/keys?search={run}',
    headers: [
      ['Cookie', 'dossier_admin=forged'],
      ['Cookie', '{cookie}'],
    ],
  },
  { name: 'sign-in, no origin', method: 'POST', path: '/admin/sign-in', headers: [FORM], body: `token=${TOKEN}` },
  {
    name: 'sign-in, same site',
    method: 'POST',
    path: '/admin/sign-in',
    headers: [FORM, ['Sec-Fetch-Site', 'same-origin']],
    body: `token=${TOKEN}`,
  },
  { name: 'sign-out', method: 'POST', path: '/admin/sign-out', headers: [['Cookie', '{cookie}'], ORIGIN], valid: true },
];

/** Requests about the prefix itself: sent as written, at the root and under the prefix alike. */
const PREFIX_CORPUS: Probe[] = [
  { name: 'outside: prefix upper case', path: '/DOSSIER/healthz', outside: true },
  { name: 'outside: prefix escaped', path: '/%64ossier/healthz', outside: true },
  { name: 'outside: dot segment into the prefix', path: '/x/%2e%2e/dossier/healthz', outside: true },
  { name: 'outside: dot segment into the prefix, plain', path: '/x/../dossier/healthz', outside: true },
  { name: 'outside: the host route', path: '/health', outside: true },
  { name: 'inside: dot segment out of the prefix', path: '/dossier/%2e%2e/health', outside: true },
  { name: 'inside: dot segment out of the prefix, plain', path: '/dossier/../health', outside: true },
  { name: 'inside: prefix, slash', path: '/dossier/', outside: true },
];

/** What the corpus left on one mount: each request's name and normalised answer. */
interface Run {
  entries: { name: string; request: string; answer: string; dossiers: boolean }[];
  /** What the process wrote on standard error. */
  stderr?: string;
  /** The id of the document it made first, as the store numbered it. */
  document?: string;
}

/** Placeholders of what a run made (key ids, secrets, documents, watches, a session). */
type Made = Record<string, string>;

function fill(text: string, made: Made): string {
  return text.replace(
    /\{(key:\w+|id:\w+|doc|watch2?|cookie|origin|host|run)\}/g,
    (_, name: string) => made[name] ?? `<no ${name}>`,
  );
}

/** The request of `probe` as bytes, for a mount at `prefix`. */
function requestOf(probe: Probe, prefix: string, host: string, made: Made, number: number): Buffer {
  const path = fill(probe.outside ? probe.path : prefix + probe.path, made);
  if (probe.raw !== undefined) return probe.raw(path, host);
  const body =
    probe.body === undefined ? undefined : Buffer.isBuffer(probe.body) ? probe.body : Buffer.from(fill(probe.body, made));
  const lines = [`${probe.method ?? 'GET'} ${path} HTTP/1.1`, `Host: ${host}`];
  const headers = (probe.headers ?? []).map(([name, value]): [string, string] => [name, fill(value, made)]);
  if (!headers.some(([name]) => name.toLowerCase() === 'x-request-id')) lines.push(`X-Request-Id: differential-${number}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** The answer as text: the status line, every header but `Date` in the order sent, the body (dechunked). */
function answerText(answer: RawAnswer): string {
  const type = answer.head.find((line) => /^content-type:/i.test(line)) ?? '';
  let body = answer.body.toString('utf8');
  // Metrics: the names and the request counters, not the durations and process figures of each process.
  if (/version=0\.0\.4/.test(type)) {
    body = body
      .split('\n')
      .filter((line) => /^# (HELP|TYPE) dossier_|^dossier_(http_requests_total|store_errors_total)/.test(line))
      .join('\n');
  }
  // A length that is the body's reads `<length>`: ids of a shared store have as many digits as it has rows.
  const head = answer.head
    .filter((line) => !/^date:/i.test(line))
    .map((line) =>
      line.replace(/^(content-length): (\d+)$/i, (same, name: string, length: string) =>
        Number(length) === answer.body.length ? `${name}: <length>` : same,
      ),
    );
  return `${head.join('\n')}\n\n${body}`;
}

/** Document ids of a run, named in the order they appear (the store is shared: numbers differ from run to run). */
function documentIds(text: string, ids: Map<string, string>): string {
  const name = (id: string): string => ids.get(id) ?? ids.set(id, `<doc-${ids.size + 1}>`).get(id)!;
  return text
    .replace(/"id":(\d+)(?=,"name":"(?:[^"\\]|\\.)*","template")/g, (_, id: string) => `"id":${name(id)}`)
    .replace(/"id":(\d+)(?=,"object":"document")/g, (_, id: string) => `"id":${name(id)}`)
    .replace(/\/documents\/(\d+)\b/g, (_, id: string) => `/documents/${name(id)}`);
}

/**
 * Sends the corpus to one mount (at `url`, Dossier under `prefix`) and records each answer, normalised;
 * `run` is the word of this run's own (`{run}`), which reads `<run>` in what is compared.
 */
async function runCorpus(url: string, prefix: string, run: string): Promise<Run> {
  const target = new URL(url);
  const host = target.host;
  const normalizer = new Normalizer(host);
  const normalise = (text: string): string => normalizer.text(text.split(run).join('<run>'));
  const docs = new Map<string, string>();
  const made: Made = { origin: `http://${host}`, host, run };
  const entries: Run['entries'] = [];
  const send = async (probe: Probe, number: number): Promise<RawAnswer> => {
    const request = requestOf(probe, prefix, host, made, number);
    const answer = await exchange(target, request);
    const text = documentIds(normalise(answerText(answer)), docs);
    const requestLine = request.subarray(0, Math.min(request.indexOf('\r\n'), 300)).toString('latin1');
    const dossiers = answer.head.some((line) => /^x-request-id:/i.test(line));
    entries.push({ name: probe.name, request: normalise(requestLine), answer: text, dossiers });
    return answer;
  };
  // The keys of this run, through the admin API.
  for (const [name, scopes] of [
    ['full', ['lookup', 'documents']],
    ['lookup', ['lookup']],
    ['documents', ['documents']],
    ['other', ['lookup']],
  ] as const) {
    const answer = await send(
      {
        name: `make key ${name}`,
        method: 'POST',
        path: '/admin/api/keys',
        headers: [ADMIN, JSON_TYPE],
        body: JSON.stringify({ name: `${run} ${name}`, scopes }),
      },
      0,
    );
    const data = JSON.parse(answer.body.toString()).data as { id: string; key: string };
    made[`key:${name}`] = data.key;
    made[`id:${name}`] = data.id;
  }
  const signIn = await send(
    { name: 'make session', method: 'POST', path: '/admin/sign-in', headers: [FORM, ORIGIN], body: `token=${TOKEN}` },
    0,
  );
  made.cookie =
    signIn.head
      .find((line) => /^set-cookie:/i.test(line))
      ?.split(/:\s*/, 2)[1]
      ?.split(';', 1)[0] ?? 'none';
  let number = 0;
  for (const probe of [...CORPUS, ...PREFIX_CORPUS]) {
    const answer = await send(probe, ++number);
    const body = answer.body.toString();
    if (probe.name === 'document create' && answer.status === 201) made.doc = String(JSON.parse(body).data.id);
    if (probe.name === 'watch create' && answer.status === 201) made.watch = String(JSON.parse(body).data.id);
    if (probe.name === 'watch create, second' && answer.status === 201) made.watch2 = String(JSON.parse(body).data.id);
  }
  // Streams the client leaves, after the head or the first delta: the log must have no stack of them
  // (what is stored of them is stream-disconnect.test.ts's; a client process slower than the server may
  // read a whole stream before it leaves, so it is not compared here).
  for (let n = 0; n < 20; n += 1) await leaveStream(url + prefix, made['key:documents']!, n % 2 ? 'delta' : 'head', `left ${n}`);
  return { entries, document: made.doc };
}

/** A word no id, secret or other run's word holds (its letters are none of hex digits): a run's `{run}`. */
function runWord(): string {
  return `run${[...randomBytes(10)].map((byte) => 'ghijklmnopqrstuvwxyz'[byte % 20]).join('')}`;
}

/**
 * The differential test (CONTRACT §12, "Alike at the edges"): one corpus of requests, every route of
 * /openapi.json with valid input and hostile ones (methods, headers, encodings, bodies, paths, prefixes,
 * cookies, streams), sent over raw sockets to the four example apps, at the root and under a prefix,
 * all eight processes serving one store at once (PostgreSQL when DOSSIER_TEST_POSTGRES is set, else one
 * SQLite file); each answer (status line, every header but `Date`, the body) must be the same from
 * every mount once per-request values are normalised (ids, secrets, times, the port, the run's word). A
 * request outside the prefix, or one that crosses it, must reach the host app on every mount (an
 * answer without `X-Request-Id`), whose own answers are its framework's and are not compared.
 */
describe('the differential test: one corpus, four example apps, one store, the same answers', function () {
  this.timeout(600_000);
  let dns: TestDnsServer;
  let dir: string;
  const served: { name: string; prefix: string; server: Served }[] = [];
  const runs = new Map<string, Run>();
  const programs = SERVER_PROGRAMS.filter((program) => program.name.startsWith('examples/'));

  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    dir = mkdtempSync(join(tmpdir(), 'dossier-differential-'));
    const env = {
      DOSSIER_STORE: process.env.DOSSIER_TEST_POSTGRES ?? `sqlite://${join(dir, 'store.sqlite')}`,
      DOSSIER_CACHE: 'memory://',
      DOSSIER_DNS_SERVERS: dns.address,
      DOSSIER_WORKERS: 'false',
      DOSSIER_ADMIN_TOKEN: TOKEN,
      DOSSIER_GENERATOR: 'offline',
    };
    // Every mount, at the root and under the prefix, serving the one store at the same time.
    for (const prefix of ['', PREFIX]) {
      for (const program of programs) {
        const server = await serve({ ...env, ...(prefix === '' ? {} : { PREFIX: prefix }) }, undefined, program);
        served.push({ name: `${program.name}${prefix}`, prefix, server });
      }
    }
    for (const { name, prefix, server } of served) runs.set(name, await runCorpus(server.url, prefix, runWord()));
    for (const { name, server } of served) {
      await stop(server.child);
      runs.get(name)!.stderr = server.err();
    }
  });
  after(async () => {
    for (const { server } of served) await stop(server.child);
    await dns?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('has a valid request for every route of /openapi.json', async () => {
    const koa = runs.get('examples/serve-koa')!;
    const openapi = koa.entries.find((entry) => entry.name === 'openapi')!;
    const document = JSON.parse(openapi.answer.slice(openapi.answer.indexOf('\n\n') + 2)) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const valid = CORPUS.filter((probe) => probe.valid).map((probe) => `${probe.method ?? 'GET'} ${probe.path.split('?')[0]}`);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations).filter((name) => name !== 'parameters')) {
        const pattern = new RegExp(`^${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        expect(
          valid.some((request) => pattern.test(request.replace(/\{(?:doc|watch2?|id:\w+)\}/g, 'x'))),
          `${method.toUpperCase()} ${path}`,
        ).to.equal(true);
      }
    }
    for (const probe of CORPUS.filter((one) => one.valid && !one.upstream)) {
      const entry = koa.entries.find((one) => one.name === probe.name)!;
      expect(entry.answer, entry.name).to.match(
        probe.status === undefined ? /^HTTP\/1\.1 [23]\d\d / : new RegExp(`^HTTP/1\\.1 ${probe.status} `),
      );
    }
  });

  for (const prefix of ['', PREFIX]) {
    for (const program of programs.slice(1)) {
      it(`${program.name}${prefix ? ' under a prefix' : ''} answers every request as examples/serve-koa does`, () => {
        const want = runs.get(`examples/serve-koa${prefix}`)!.entries;
        const got = runs.get(`${program.name}${prefix}`)!.entries;
        expect(got.length).to.equal(want.length);
        const differences: string[] = [];
        for (const [i, expected] of want.entries()) {
          const actual = got[i]!;
          const same =
            expected.dossiers || actual.dossiers
              ? headersSorted(expected.answer) === headersSorted(actual.answer)
              : // Both answered by the host app: its framework's own answer.
                true;
          if (!same) {
            differences.push(
              `${expected.name}\n  request: ${expected.request}\n--- examples/serve-koa\n${expected.answer}\n--- ${program.name}\n${actual.answer}`,
            );
          }
        }
        expect(differences.length, `${differences.length} differences:\n${differences.slice(0, 12).join('\n\n')}`).to.equal(0);
      });
    }
  }

  it('served one store from the eight processes: each document made is numbered after the others', () => {
    const documents = [...runs.values()].map((run) => run.document);
    expect(new Set(documents).size, documents.join(', ')).to.equal(served.length);
  });

  it('writes only JSON log lines on standard error, streams that clients left included', () => {
    for (const [name, run] of runs) {
      const lines = run.stderr!.split('\n').filter((line) => line !== '');
      expect(lines.length, name).to.be.greaterThan(CORPUS.length);
      for (const line of lines) expect(() => JSON.parse(line) as unknown, `${name}: ${line}`).not.to.throw();
    }
  });

  it('under the prefix, nothing outside it reaches Dossier and nothing inside it reaches the host app', () => {
    for (const program of programs) {
      const entries = runs.get(`${program.name}${PREFIX}`)!.entries;
      for (const probe of PREFIX_CORPUS) {
        const entry = entries.find((one) => one.name === probe.name)!;
        expect(entry.dossiers, `${program.name}: ${probe.name}\n${entry.answer}`).to.equal(probe.name.startsWith('inside'));
      }
    }
  });
});
