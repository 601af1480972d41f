import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dossierJson, MAIN } from '../support/cli.js';
import { startTestServer } from '../support/harness.js';
import { bodyOf, callTool } from '../support/mcp-client.js';
import { readSnippets } from '../support/snippets.js';

/** A client's configuration of Dossier, as docs/mcp.md shows it. */
interface ServerConfig {
  url?: string;
  headers?: Record<string, string>;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The placeholder of docs/mcp.md's configurations for the key's secret. */
const PLACEHOLDER = 'dsk_your_key';

/** Each configuration of Dossier in docs/mcp.md (the `dossier` entry of a JSON block's `mcpServers`). */
function configurations(): ServerConfig[] {
  return readSnippets('docs/mcp.md')
    .snippets.filter((snippet) => snippet.language === 'json')
    .map((snippet) => (JSON.parse(snippet.code) as { mcpServers?: { dossier?: ServerConfig } }).mcpServers?.dossier)
    .filter((config): config is ServerConfig => config !== undefined);
}

/** The key's secret where a configuration has the placeholder. */
const withKey = (values: Record<string, string> | undefined, key: string): Record<string, string> =>
  Object.fromEntries(Object.entries(values ?? {}).map(([name, value]) => [name, value.replace(PLACEHOLDER, key)]));

describe("docs/mcp.md's client configurations, as a client starts them", function () {
  this.timeout(120_000);
  const configs = configurations();
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  /** The client, connected, answering a tool call as its route. */
  async function works(client: Client): Promise<void> {
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).to.include('templates_list');
    expect(bodyOf(await callTool(client, 'templates_list'))).to.have.property('status', 200);
  }

  it('shows a configuration over HTTP, one over stdio, and one through mcp-remote (which downloads it: not run)', () => {
    expect(configs.filter((config) => config.url !== undefined)).to.have.length(1);
    expect(configs.filter((config) => config.command?.endsWith('/node_modules/.bin/dossier'))).to.have.length(1);
    expect(configs.filter((config) => config.args?.includes('mcp-remote'))).to.have.length(1);
  });

  it('connects with the URL and the headers of the HTTP configuration', async () => {
    const config = configs.find((each) => each.url !== undefined)!;
    const server = await startTestServer();
    try {
      const key = await server.key();
      // Its own address in place of the port the page names.
      const url = new URL(new URL(config.url!).pathname, server.url);
      const client = new Client({ name: 'docs', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: withKey(config.headers, key) } }));
      await works(client);
    } finally {
      for (const client of clients.splice(0)) await client.close();
      await server.close();
    }
  });

  it('starts dossier mcp with the command, arguments and environment of the stdio configuration', async () => {
    const config = configs.find((each) => each.command?.endsWith('/node_modules/.bin/dossier'))!;
    const dir = mkdtempSync(join(tmpdir(), 'dossier-mcp-docs-'));
    try {
      const store = `sqlite://${join(dir, 'dossier.sqlite')}`;
      const { key } = await dossierJson<{ key: string }>(['keys', 'create', '--name', 'claude'], { DOSSIER_STORE: store });
      // The app's bin is this checkout's command; the store is the test's own.
      const env = { ...withKey(config.env, key), DOSSIER_STORE: store };
      expect(Object.keys(env)).to.include.members(['DOSSIER_KEY', 'DOSSIER_WORKERS']);
      const client = new Client({ name: 'docs', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN, ...config.args!],
          env: { PATH: process.env.PATH!, ...env },
          stderr: 'pipe',
        }),
      );
      await works(client);
    } finally {
      for (const client of clients.splice(0)) await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
