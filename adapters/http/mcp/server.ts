import type { Server } from '@modelcontextprotocol/server';
import type { ApiKey } from '../../../lib/index.js';
import { dossierVersion } from '../../version.js';
import type { HttpResponse } from '../reply.js';
import { ExchangeTransport } from './exchange.js';
import { loadMcpSdk, type McpSdk } from './sdk.js';
import { allows, toolRequest, toolResult, TOOLS, toolsFor, type Tool, type ToolRequest } from './tools.js';

/** The protocol versions Dossier speaks (docs/contract.md §13), newest first: `initialize` offers the first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'];

/** Who sent one MCP request: its key, and the way to the route table on its behalf. */
export interface McpCaller {
  /** The key that authenticated the request. */
  readonly key: ApiKey;
  /** Sends `request` to the route table as the caller (its key, its client), resolving with the route's answer. */
  send(request: ToolRequest): Promise<HttpResponse>;
  /** Hears that a tool call was answered with `status` by its route (for `/metrics`). */
  called(tool: string, status: number): void;
}

/** The MCP server every request to `/mcp` is handed to, and the SDK it is made with. */
export interface McpDoor {
  readonly sdk: McpSdk;
  readonly transport: ExchangeTransport<McpCaller>;
}

/** The resources (docs/contract.md §13): the template list, and a document of the key's owner, each a tool's route read a third way. */
const TEMPLATES_URI = 'dossier://templates';
const DOCUMENT_URI = /^dossier:\/\/documents\/([^/?#]+)$/;

let opened: Promise<McpDoor> | undefined;

/**
 * The MCP server of this process, made on first use: the SDK's `Server`, speaking {@link PROTOCOL_VERSIONS},
 * with the `tools` and `resources` capabilities, behind an {@link ExchangeTransport}. It holds nothing of
 * any caller: each request brings its own (see {@link McpCaller}), so one serves every mount and client.
 * @throws DossierError `ERR_NOT_IMPLEMENTED` when the SDK is not installed.
 */
export function openMcpDoor(): Promise<McpDoor> {
  return (opened ??= makeDoor().catch((error: unknown) => {
    opened = undefined;
    throw error;
  }));
}

async function makeDoor(): Promise<McpDoor> {
  const sdk = await loadMcpSdk();
  const server = new sdk.Server(
    { name: 'dossier', version: dossierVersion() },
    { capabilities: { tools: {}, resources: {} }, supportedProtocolVersions: PROTOCOL_VERSIONS },
  );
  const transport = new ExchangeTransport<McpCaller>();
  answerTools(sdk, server, transport);
  answerResources(sdk, server, transport);
  await server.connect(transport);
  return { sdk, transport };
}

function answerTools(sdk: McpSdk, server: Server, transport: ExchangeTransport<McpCaller>): void {
  server.setRequestHandler('tools/list', (_, ctx) => ({ tools: toolsFor(transport.callerOf(ctx.mcpReq.id).key) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const caller = transport.callerOf(ctx.mcpReq.id);
    const { name, arguments: args = {} } = request.params;
    const tool = TOOLS.get(name);
    if (tool === undefined) throw new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const response = await caller.send(requestOf(sdk, tool, args));
    caller.called(name, response.status);
    return server.projectCallToolResult(toolResult(tool, response), tool.listing.outputSchema);
  });
}

/** The request a call of `tool` sends to its route. @throws ProtocolError `-32602` when an argument of its path is missing */
function requestOf(sdk: McpSdk, tool: Tool, args: Record<string, unknown>): ToolRequest {
  const request = toolRequest(tool, args);
  if ('missing' in request)
    throw new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidParams, `${tool.listing.name} needs "${request.missing}".`);
  return request;
}

function answerResources(sdk: McpSdk, server: Server, transport: ExchangeTransport<McpCaller>): void {
  const templates = TOOLS.get('templates_list')!;
  const document = TOOLS.get('document_get')!;
  const readable = (key: ApiKey): boolean => allows(key, templates.route) && allows(key, document.route);
  server.setRequestHandler('resources/list', (_, ctx) => ({
    resources: readable(transport.callerOf(ctx.mcpReq.id).key)
      ? [{ uri: TEMPLATES_URI, name: 'templates', title: templates.listing.title, mimeType: 'application/json' }]
      : [],
  }));
  server.setRequestHandler('resources/templates/list', (_, ctx) => ({
    resourceTemplates: readable(transport.callerOf(ctx.mcpReq.id).key)
      ? [
          {
            uriTemplate: 'dossier://documents/{id}',
            name: 'document',
            title: document.listing.title,
            mimeType: 'application/json',
          },
        ]
      : [],
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    const id = DOCUMENT_URI.exec(uri)?.[1];
    const tool = uri === TEMPLATES_URI ? templates : id !== undefined ? document : undefined;
    if (tool === undefined) throw new sdk.ResourceNotFoundError(uri);
    const response = await transport.callerOf(ctx.mcpReq.id).send(requestOf(sdk, tool, { id: decodeURIComponent(id ?? '') }));
    const { content, isError } = toolResult(tool, response);
    const text = content[0]?.text ?? '';
    if (response.status === 404) throw new sdk.ResourceNotFoundError(uri, text);
    // The route's refusal, as the error's message and data: a resource has no result that says "error".
    if (isError) {
      const code = response.status < 500 ? sdk.ProtocolErrorCode.InvalidRequest : sdk.ProtocolErrorCode.InternalError;
      throw new sdk.ProtocolError(code, text, { status: response.status });
    }
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  });
}
