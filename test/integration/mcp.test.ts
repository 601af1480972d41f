import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { TOOLS } from '../../adapters/http/mcp/tools.js';
import { ROUTES } from '../../adapters/http/routes.js';
import type { DossierOptions } from '../../lib/options.js';
import { closedPort } from '../support/closed-port.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { bodyOf, callTool, mcpClient, type ToolAnswer } from '../support/mcp-client.js';

const TOKEN = 'mcp-test-admin-token-0123456789abcdefghij';
const PREFIX = '/dossier';

/** The tools of docs/contract.md §13, in the order of the reference page. */
const CONTRACT_TOOLS = [
  'dns_lookup',
  'whois_lookup',
  'ip_lookup',
  'ssl_lookup',
  'usage',
  'watch_create',
  'watches_list',
  'watch_get',
  'watch_delete',
  'watch_check',
  'documents_list',
  'document_create',
  'document_get',
  'document_update',
  'document_delete',
  'templates_list',
];
const LOOKUP_TOOLS = CONTRACT_TOOLS.filter((name) => !/^(document|templates)/.test(name));

/** A raw JSON-RPC request to `/mcp`, as a client of the Streamable HTTP transport sends it. */
function rpc(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  };
}

eachAdapter(() => {
  describe('MCP over Streamable HTTP: the routes as tools (docs/contract.md §13)', function () {
    this.timeout(60_000);
    let dns: TestDnsServer;
    let closed: number;
    let server: TestServer;
    const clients: Client[] = [];
    const lines: Record<string, unknown>[] = [];

    before(async () => {
      dns = await startDnsServer({
        'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }], MX: [{ exchange: 'mail.example.test', priority: 10 }] },
        'local.test': { A: [{ address: '127.0.0.1', ttl: 600 }] },
        '142.69.2.81.in-addr.arpa': { PTR: ['host142.example.test'] },
      });
      closed = await closedPort();
    });
    after(() => dns.close());
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
      await server?.close();
      lines.length = 0;
    });

    /** Dossier under {@link PREFIX}, its upstreams on loopback (whois, RDAP and TLS at a closed port), logging to {@link lines}. */
    async function start(options: DossierOptions = {}, prefix = PREFIX): Promise<TestServer> {
      const log =
        (level: string) =>
        (msg: string, fields: Record<string, unknown> = {}) =>
          lines.push({ level, msg, ...fields });
      server = await startTestServer(
        {
          dnsServers: [dns.address],
          whoisServer: `127.0.0.1:${closed}`,
          rdapUrl: `http://127.0.0.1:${closed}/`,
          sslPort: closed,
          allowPrivateTargets: true,
          lookupTimeoutMs: 2000,
          adminToken: TOKEN,
          logger: { info: log('info'), warn: log('warn'), error: log('error') },
          ...options,
        },
        { prefix },
      );
      return server;
    }

    async function connect(key: string, base = server.url): Promise<Client> {
      const client = await mcpClient(base, key);
      clients.push(client);
      return client;
    }

    /** The route's answer over HTTP, as JSON (`null` for none). */
    async function http(path: string, key: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
      const response = await server.get(path, key, init);
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : JSON.parse(text) };
    }

    it('initializes with the official client: serverInfo dossier and its version, tools and resources; 2025-11-25 or 2025-06-18', async () => {
      await start();
      const key = await server.key();
      const client = await connect(key);
      const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      expect(client.getServerVersion()).to.deep.equal({ name: 'dossier', version });
      expect(client.getServerCapabilities()).to.include.keys('tools', 'resources');
      for (const protocolVersion of ['2025-06-18', '2025-11-25']) {
        const answer = await http(
          '/mcp',
          key,
          rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
        );
        expect(answer.status).to.equal(200);
        expect(answer.body).to.nested.include({ 'result.protocolVersion': protocolVersion, 'result.serverInfo.name': 'dossier' });
      }
      // A version it does not speak: it offers its newest, and a request that claims one is refused.
      const old = await http(
        '/mcp',
        key,
        rpc('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
      );
      expect(old.body).to.nested.include({ 'result.protocolVersion': '2025-11-25' });
      const refused = await http('/mcp', key, rpc('tools/list', {}, { 'MCP-Protocol-Version': '2024-11-05' }));
      expect(refused.status).to.equal(400);
      expect(refused.body).to.nested.include({ 'error.code': -32600 });
    });

    it("lists the tools of the contract, each with its route's parameters and 2xx body as schemas", async () => {
      await start();
      const { tools } = await (await connect(await server.key())).listTools();
      expect(tools.map((tool) => tool.name)).to.deep.equal(CONTRACT_TOOLS);
      const route = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path)!;
      const dns = tools.find((tool) => tool.name === 'dns_lookup')!;
      const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as unknown;
      expect(dns.inputSchema).to.deep.equal({
        type: 'object',
        properties: plain(route('get', '/api/dns').query!.properties),
        required: ['domain'],
      });
      expect(dns.outputSchema).to.deep.equal(plain(route('get', '/api/dns').responses[200]!.body));
      const update = tools.find((tool) => tool.name === 'document_update')!;
      expect(Object.keys(update.inputSchema.properties!)).to.deep.equal(['id', 'name', 'result', 'favorite']);
      expect(update.inputSchema.required).to.deep.equal(['id']);
      expect(tools.find((tool) => tool.name === 'document_create')!.outputSchema).to.deep.equal(
        plain(route('post', '/api/v1/documents').responses[201]!.body),
      );
      // A route without a body answers none: no output schema.
      expect(tools.find((tool) => tool.name === 'watch_delete')!.outputSchema).to.equal(undefined);
      expect(tools.find((tool) => tool.name === 'document_delete')!.annotations).to.include({
        destructiveHint: true,
        readOnlyHint: false,
      });
    });

    it('answers every tool exactly as its route answers the same request over HTTP', async () => {
      await start();
      const key = await server.key({ dailyLimit: 100 });
      const client = await connect(key);
      const same = async (name: string, args: Record<string, unknown>, path: string): Promise<ToolAnswer> => {
        const result = await callTool(client, name, args);
        const route = await http(path, key);
        expect(bodyOf(result), name).to.deep.equal(route.body);
        expect(result.isError ?? false, name).to.equal(route.status >= 400);
        return result;
      };
      // Lookups, cached (a first HTTP request fills the cache), and those whose upstream refuses (502).
      await http('/api/dns?domain=example.test', key);
      const dns = await same('dns_lookup', { domain: 'example.test' }, '/api/dns?domain=example.test');
      expect(dns.structuredContent).to.include({ status: 'success', cached: true });
      await http('/api/ip?ip=81.2.69.142', key);
      await same('ip_lookup', { ip: '81.2.69.142' }, '/api/ip?ip=81.2.69.142');
      const whois = await same('whois_lookup', { domain: 'local.test' }, '/api/whois?domain=local.test');
      expect(JSON.parse(whois.content[0]!.text!)).to.include({ code: 'upstream_error' });
      await same('ssl_lookup', { domain: 'local.test' }, '/api/ssl?domain=local.test');
      await same('usage', {}, '/api/usage');
      // Documents.
      const created = await callTool(client, 'document_create', { name: 'Notes', prompt: 'Write about the harbour' });
      const { data } = bodyOf(created) as { data: { id: number } };
      expect(created.isError).to.equal(undefined);
      expect((await http(`/api/v1/documents/${data.id}`, key)).body).to.deep.equal({ data, status: 200 });
      await same('document_get', { id: data.id }, `/api/v1/documents/${data.id}`);
      await same('documents_list', { per_page: 10, sort: 'asc' }, '/api/v1/documents?per_page=10&sort=asc');
      const updated = await callTool(client, 'document_update', { id: data.id, name: 'Harbour notes', favorite: true });
      expect(bodyOf(updated)).to.deep.equal((await http(`/api/v1/documents/${data.id}`, key)).body);
      expect(updated.structuredContent).to.nested.include({ 'data.name': 'Harbour notes', 'data.favorite': true });
      await same('templates_list', {}, '/api/v1/templates');
      expect(bodyOf(await callTool(client, 'document_delete', { id: data.id }))).to.deep.equal({
        id: data.id,
        object: 'document',
        deleted: true,
        status: 200,
      });
      await same('document_get', { id: data.id }, `/api/v1/documents/${data.id}`);
      // Watches.
      const watch = await callTool(client, 'watch_create', {
        type: 'dns',
        domain: 'example.test',
        webhook_url: 'http://127.0.0.1:8080/hook',
      });
      const { id } = (bodyOf(watch) as { data: { id: string } }).data;
      await same('watches_list', {}, '/api/watches');
      await same('watch_get', { id }, `/api/watches/${id}`);
      const check = await callTool(client, 'watch_check', { id });
      expect(bodyOf(check)).to.nested.include({ status: 'success', 'data.id': id });
      expect(check._meta).to.have.nested.property('dossier/quota.remaining');
      const removed = await callTool(client, 'watch_delete', { id });
      expect(removed).to.deep.include({ content: [] });
      expect(removed.isError).to.equal(undefined);
      expect((await http(`/api/watches/${id}`, key)).status).to.equal(404);
    });

    it("meters a lookup tool call as its route: one count shared with HTTP, a spent quota the route's 429 with _meta quota", async () => {
      await start();
      const key = await server.key({ dailyLimit: 4 });
      const client = await connect(key);
      // initialize, tools/list and ping count nothing, nor does usage.
      await client.listTools();
      await client.ping();
      await callTool(client, 'usage');
      const first = await callTool(client, 'dns_lookup', { domain: 'example.test' });
      expect(first._meta).to.deep.equal({
        'dossier/quota': { limit: 4, remaining: 3, reset: (first._meta!['dossier/quota'] as { reset: number }).reset },
      });
      expect((await http('/api/dns?domain=example.test', key)).status).to.equal(200);
      // A 400 counts nothing, over either door.
      const invalid = await callTool(client, 'dns_lookup', { domain: 'not a domain' });
      expect(invalid.isError).to.equal(true);
      expect(invalid.structuredContent).to.equal(undefined);
      expect(bodyOf(invalid)).to.include({ status: 'error', code: 'invalid_domain' });
      expect(await callTool(client, 'dns_lookup', { domain: 'example.test' })).to.have.nested.property(
        '_meta.dossier/quota.remaining',
        1,
      );
      expect((await http('/api/dns?domain=example.test', key)).status).to.equal(200);
      const spent = await callTool(client, 'dns_lookup', { domain: 'example.test' });
      expect(spent.isError).to.equal(true);
      expect(bodyOf(spent)).to.include({ status: 'error', code: 'quota_exceeded' });
      const quota = spent._meta!['dossier/quota'] as Record<string, number>;
      expect(quota).to.include({ limit: 4, remaining: 0 });
      expect(quota.retry_after).to.be.a('number').above(0);
      expect((await http('/api/dns?domain=example.test', key)).status).to.equal(429);
      const usage = bodyOf(await callTool(client, 'usage')) as { data: { used_today: number } };
      expect(usage.data.used_today).to.equal(4);
    });

    it('counts exactly under concurrency: a limit of 10, 20 calls at once, exactly 10 answered', async () => {
      await start();
      const key = await server.key({ dailyLimit: 10 });
      const client = await connect(key);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => callTool(client, 'dns_lookup', { domain: 'example.test' })),
      );
      const answered = results.filter((result) => !result.isError);
      expect(answered).to.have.length(10);
      for (const result of results.filter((each) => each.isError)) expect(bodyOf(result)).to.include({ code: 'quota_exceeded' });
      expect(((await http('/api/usage', key)).body as { data: { used_today: number } }).data.used_today).to.equal(10);
    });

    it("lists and allows only what the key's scopes allow", async () => {
      await start();
      const lookupOnly = await connect(await server.key({ scopes: ['lookup'] }));
      expect((await lookupOnly.listTools()).tools.map((tool) => tool.name)).to.deep.equal(LOOKUP_TOOLS);
      expect((await lookupOnly.listResources()).resources).to.deep.equal([]);
      const refused = await callTool(lookupOnly, 'templates_list');
      expect(refused.isError).to.equal(true);
      expect(bodyOf(refused)).to.deep.equal({ message: 'This key does not have the "documents" scope.', status: 403 });
      const documentsOnly = await connect(await server.key({ scopes: ['documents'] }));
      expect((await documentsOnly.listTools()).tools.map((tool) => tool.name)).to.deep.equal(
        CONTRACT_TOOLS.filter((name) => !LOOKUP_TOOLS.includes(name)),
      );
      const lookup = await callTool(documentsOnly, 'dns_lookup', { domain: 'example.test' });
      expect(bodyOf(lookup)).to.include({ code: 'insufficient_scope' });
    });

    it('refuses a request without a working key (401, the bearer challenge) before anything runs; a revoked key from its next request', async () => {
      await start();
      for (const key of [undefined, 'dsk_not_a_key']) {
        const response = await server.get('/mcp', key, rpc('tools/list'));
        expect(response.status).to.equal(401);
        expect(response.headers.get('www-authenticate')).to.match(/^Bearer realm="dossier"/);
      }
      const secret = await server.key();
      const client = await connect(secret);
      expect((await callTool(client, 'dns_lookup', { domain: 'example.test' })).isError).to.equal(undefined);
      const [key] = await server.dossier.keys.list();
      await server.dossier.keys.revoke(key!.id);
      const error = await callTool(client, 'dns_lookup', { domain: 'example.test' }).catch((thrown: Error) => thrown);
      expect(error).to.be.instanceOf(Error).with.property('code', 401);
      expect((await server.get('/mcp', secret, rpc('tools/list'))).status).to.equal(401);
    });

    it('refuses another origin, GET and DELETE (405), and what is not one JSON-RPC message', async () => {
      await start();
      const key = await server.key();
      const origin = await http('/mcp', key, rpc('tools/list', {}, { Origin: 'https://evil.example' }));
      expect(origin).to.deep.include({ status: 403 });
      expect(origin.body).to.include({ code: 'invalid_origin' });
      const own = new URL(server.url).origin;
      expect((await http('/mcp', key, rpc('tools/list', {}, { Origin: own }))).status).to.equal(200);
      for (const method of ['GET', 'DELETE']) {
        const response = await server.get('/mcp', key, { method });
        expect(response.status).to.equal(405);
        expect(response.headers.get('allow')).to.equal('POST');
      }
      expect((await http('/mcp', key, rpc('tools/list', {}, { Accept: 'text/html' }))).status).to.equal(406);
      expect((await http('/mcp', key, rpc('tools/list', {}, { 'Content-Type': 'text/plain' }))).status).to.equal(415);
      const post = (body: string) => http('/mcp', key, { ...rpc('tools/list'), body });
      expect(await post('{')).to.deep.include({ status: 400 });
      expect((await post('{')).body).to.nested.include({ 'error.code': -32700 });
      expect((await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).body).to.nested.include({ 'error.code': -32600 });
      // A request the SDK could not read (its params not an object) is refused, not left unanswered.
      expect(await post('{"jsonrpc":"2.0","id":1,"method":"ping","params":5}')).to.deep.include({
        status: 400,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request of MCP.' },
        },
      });
      // A notification is taken with nothing to answer.
      expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).to.equal(202);
      // As one Server-Sent Event for a client that prefers them.
      const stream = await server.get('/mcp', key, rpc('ping', {}, { Accept: 'text/event-stream' }));
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(await stream.text()).to.equal('event: message\ndata: {"result":{},"jsonrpc":"2.0","id":7}\n\n');
    });

    it('answers an unknown tool, or a call without the id its route needs, with -32602', async () => {
      await start();
      const client = await connect(await server.key());
      for (const [name, args] of [
        ['no_such_tool', {}],
        ['document_get', {}],
      ] as const) {
        const error = (await client.callTool({ name, arguments: args }).catch((thrown: unknown) => thrown)) as { code?: number };
        expect(error.code, name).to.equal(-32602);
      }
    });

    it('reads the templates and a document of the owner as resources', async () => {
      await start();
      const key = await server.key();
      const client = await connect(key);
      expect((await client.listResources()).resources.map((resource) => resource.uri)).to.deep.equal(['dossier://templates']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((each) => each.uriTemplate)).to.deep.equal([
        'dossier://documents/{id}',
      ]);
      const templates = await client.readResource({ uri: 'dossier://templates' });
      expect(templates.contents).to.have.length(1);
      expect(templates.contents[0]).to.include({ uri: 'dossier://templates', mimeType: 'application/json' });
      expect(JSON.parse((templates.contents[0] as { text: string }).text)).to.deep.equal(
        (await http('/api/v1/templates', key)).body,
      );
      const { data } = bodyOf(await callTool(client, 'document_create', { name: 'A', prompt: 'Write about tides' })) as {
        data: { id: number };
      };
      const document = await client.readResource({ uri: `dossier://documents/${data.id}` });
      expect(JSON.parse((document.contents[0] as { text: string }).text)).to.deep.equal({ data, status: 200 });
      // Another owner's document, or none, is not found.
      const stranger = await connect(await server.key({ owner: 'someone-else' }));
      for (const [reader, uri] of [
        [stranger, `dossier://documents/${data.id}`],
        [client, 'dossier://documents/999999'],
        [client, 'dossier://nothing'],
      ] as const) {
        const error = (await reader.readResource({ uri }).catch((thrown: unknown) => thrown)) as { code?: number };
        expect(error.code, uri).to.equal(-32602);
      }
    });

    it('logs one line per request with its tool, and counts tool calls by tool and outcome in /metrics', async () => {
      await start();
      const key = await server.key({ dailyLimit: 1 });
      const client = await connect(key);
      await callTool(client, 'dns_lookup', { domain: 'example.test' });
      await callTool(client, 'dns_lookup', { domain: 'example.test' });
      await callTool(client, 'usage');
      const requests = lines.filter((line) => line.msg === 'request' && line.route === '/mcp');
      expect(requests.filter((line) => line.mcp_method === 'tools/call').map((line) => [line.tool, line.status])).to.deep.equal([
        ['dns_lookup', 200],
        ['dns_lookup', 200],
        ['usage', 200],
      ]);
      // One line per MCP request, not one more for the route it called.
      expect(lines.filter((line) => line.msg === 'request' && line.route !== '/mcp')).to.deep.equal([]);
      const metrics = await (await server.get('/metrics', TOKEN)).text();
      expect(metrics).to.include('dossier_mcp_tool_calls_total{tool="dns_lookup",outcome="success"} 1');
      expect(metrics).to.include('dossier_mcp_tool_calls_total{tool="dns_lookup",outcome="refused"} 1');
      expect(metrics).to.include('dossier_mcp_tool_calls_total{tool="usage",outcome="success"} 1');
    });

    it('is served at the root of a mount too', async () => {
      await start({}, '');
      const client = await connect(await server.key());
      expect(bodyOf(await callTool(client, 'templates_list'))).to.have.property('status', 200);
    });
  });
});

describe('MCP tools are the routes that name one', () => {
  it('has a tool for each route that names one, and only those', () => {
    const named = ROUTES.filter((route) => route.tool !== undefined);
    expect(named.map((route) => route.tool).sort()).to.deep.equal([...TOOLS.keys()].sort());
    for (const route of named) expect(TOOLS.get(route.tool!)!.route).to.equal(route);
    expect([...TOOLS.keys()].sort()).to.deep.equal([...CONTRACT_TOOLS].sort());
  });
});
