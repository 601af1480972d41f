import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';

/** A tool's result as the official client hands it over. */
export interface ToolAnswer {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The official SDK's client, connected over Streamable HTTP to the `/mcp` at `base` (a mount's URL, its prefix included). */
export async function mcpClient(base: string, key: string): Promise<Client> {
  const client = new Client({ name: 'dossier-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls `name` with `args`; the client checks the result against the tool's output schema itself. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/**
 * The route's JSON body a result carries: its one text item, parsed, which `structuredContent` (when there)
 * is exactly.
 */
export function bodyOf(result: ToolAnswer): unknown {
  expect(result.content).to.have.length(1);
  const [item] = result.content;
  expect(item!.type).to.equal('text');
  const body: unknown = JSON.parse(item!.text!);
  if (result.structuredContent !== undefined) expect(result.structuredContent).to.deep.equal(body);
  return body;
}
