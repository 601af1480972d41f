import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from '../support/closed-port.js';
import { dossierJson, dossierProcess, MAIN } from '../support/cli.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { bodyOf, callTool } from '../support/mcp-client.js';
import { until } from '../support/until.js';

/** A `dossier mcp` process, and the official client over its standard input and output. */
interface Agent {
  client: Client;
  /** What the process has written on standard error so far. */
  stderr(): string;
  /** Errors the client met reading standard output (a line that is not JSON-RPC would be one). */
  errors: Error[];
}

describe('dossier mcp: MCP over stdio, as the key in DOSSIER_KEY (docs/contract.md §13)', function () {
  this.timeout(120_000);
  let dns: TestDnsServer;
  let dir: string;
  let env: Record<string, string>;
  const agents: Agent[] = [];

  before(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
      'local.test': { A: [{ address: '127.0.0.1', ttl: 600 }] },
    });
    const closed = await closedPort();
    dir = mkdtempSync(join(tmpdir(), 'dossier-mcp-'));
    env = {
      DOSSIER_STORE: `sqlite://${join(dir, 'store.sqlite')}`,
      DOSSIER_CACHE: 'memory://',
      DOSSIER_DNS_SERVERS: dns.address,
      DOSSIER_WHOIS_SERVER: `127.0.0.1:${closed}`,
      DOSSIER_RDAP_URL: `http://127.0.0.1:${closed}/`,
      DOSSIER_SSL_PORT: String(closed),
      DOSSIER_ALLOW_PRIVATE_TARGETS: 'true',
      DOSSIER_WORKERS: 'false',
    };
  });
  after(async () => {
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.client.close();
  });

  const newKey = (limit = 1000): Promise<{ id: string; key: string }> =>
    dossierJson(['keys', 'create', '--name', 'agent', '--daily-limit', String(limit)], env);

  /** `dossier mcp` for `key`, as an agent's client starts it, connected. */
  async function agent(key: string): Promise<Agent> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: { PATH: process.env.PATH!, ...env, DOSSIER_KEY: key },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    const errors: Error[] = [];
    const client = new Client({ name: 'dossier-tests', version: '1.0.0' });
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    const started = { client, stderr: () => stderr, errors };
    agents.push(started);
    return started;
  }

  it('initializes, lists every tool and answers each as its route, JSON-RPC alone on standard output and the log on standard error', async () => {
    const { key } = await newKey();
    const { client, stderr, errors } = await agent(key);
    expect(client.getServerVersion()).to.have.property('name', 'dossier');
    expect((await client.listTools()).tools).to.have.length(16);
    const dnsAnswer = await callTool(client, 'dns_lookup', { domain: 'example.test' });
    expect(bodyOf(dnsAnswer)).to.nested.include({ status: 'success', 'data.domain': 'example.test' });
    for (const name of ['whois_lookup', 'ssl_lookup'])
      expect(bodyOf(await callTool(client, name, { domain: 'local.test' })), name).to.include({ code: 'upstream_error' });
    expect(bodyOf(await callTool(client, 'ip_lookup', { ip: 'not an ip' }))).to.include({ code: 'invalid_ip' });
    expect(bodyOf(await callTool(client, 'usage'))).to.nested.include({ 'data.used_today': 3 });
    const { data } = bodyOf(await callTool(client, 'document_create', { name: 'N', prompt: 'Write about rivers' })) as {
      data: { id: number };
    };
    expect(bodyOf(await callTool(client, 'document_update', { id: data.id, name: 'M' }))).to.nested.include({ 'data.name': 'M' });
    expect(bodyOf(await callTool(client, 'document_get', { id: data.id }))).to.nested.include({ 'data.id': data.id });
    expect(bodyOf(await callTool(client, 'documents_list'))).to.nested.include({ 'meta.total': 1 });
    expect(bodyOf(await callTool(client, 'templates_list'))).to.have.property('status', 200);
    expect(bodyOf(await callTool(client, 'document_delete', { id: data.id }))).to.include({ deleted: true });
    const watch = bodyOf(
      await callTool(client, 'watch_create', { type: 'dns', domain: 'example.test', webhook_url: 'http://127.0.0.1:8080/hook' }),
    ) as { data: { id: string } };
    const { id } = watch.data;
    expect(bodyOf(await callTool(client, 'watches_list'))).to.nested.include({ 'data[0].id': id });
    expect(bodyOf(await callTool(client, 'watch_get', { id }))).to.nested.include({ 'data.id': id });
    expect(bodyOf(await callTool(client, 'watch_check', { id }))).to.nested.include({ 'data.id': id });
    expect(await callTool(client, 'watch_delete', { id })).to.deep.include({ content: [] });
    expect((await client.readResource({ uri: 'dossier://templates' })).contents).to.have.length(1);
    expect(errors).to.deep.equal([]);
    // One log line per message, naming its tool (the log is written a batch at a time); nothing but JSON lines.
    const calls = (): Record<string, unknown>[] =>
      stderr()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request' && line.mcp_method === 'tools/call');
    await until(() => calls().length === 16, 'a line for each of the 16 tool calls');
    expect(calls().map((line) => line.tool)).to.include.members(['dns_lookup', 'watch_check', 'document_create']);
  });

  it('counts one quota across processes on one store: a limit of 10, 20 calls from two processes, exactly 10 answered', async () => {
    const { key } = await newKey(10);
    const [one, two] = await Promise.all([agent(key), agent(key)]);
    const calls = [one!, two!].flatMap(({ client }) =>
      Array.from({ length: 10 }, () => callTool(client, 'dns_lookup', { domain: 'example.test' })),
    );
    const results = await Promise.all(calls);
    expect(results.filter((result) => !result.isError)).to.have.length(10);
    for (const refused of results.filter((result) => result.isError))
      expect(bodyOf(refused)).to.include({ code: 'quota_exceeded' });
    expect(bodyOf(await callTool(one!.client, 'usage'))).to.nested.include({ 'data.used_today': 10, 'data.remaining': 0 });
  });

  it('refuses the next call of a key revoked while it runs, naming DOSSIER_KEY', async () => {
    const { id, key } = await newKey();
    const { client } = await agent(key);
    expect((await callTool(client, 'usage')).isError).to.equal(undefined);
    await dossierJson(['keys', 'revoke', id], env);
    const error = (await callTool(client, 'usage').catch((thrown: unknown) => thrown)) as Error;
    expect(error).to.be.instanceOf(Error);
    expect(error.message).to.include('DOSSIER_KEY was refused');
  });

  it('stops at start, naming DOSSIER_KEY, without one or with one that does not work', async () => {
    for (const key of [undefined, 'dsk_no_such_key']) {
      const run = await dossierProcess(['mcp'], { ...env, ...(key === undefined ? {} : { DOSSIER_KEY: key }) });
      expect(run.code, run.stderr).to.equal(3);
      expect(run.stderr).to.include('DOSSIER_KEY');
      expect(run.stdout).to.equal('');
    }
  });
});
