import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { HttpHandler } from '../handler.js';
import type { HttpRequest } from '../request.js';
import { innerRequest } from './inner-request.js';
import { MCP_SDK } from './sdk.js';

/** Where a stdio message comes from, as the route table sees it: no client address, and the key in `Authorization`. */
function stdioClient(secret: string, signal: AbortSignal): HttpRequest {
  const authorization = `Bearer ${secret}`;
  return {
    method: 'POST',
    target: '/mcp',
    prefix: '',
    header: (name) => (name === 'authorization' ? authorization : undefined),
    body: null,
    encrypted: false,
    remoteAddress: undefined,
    signal,
  };
}

/**
 * Serves MCP over stdio (docs/contract.md §13, `dossier mcp`) until `input` ends: each JSON-RPC message
 * read from `input` (one a line, framed by the SDK's stdio transport) is a `POST /mcp` to `handler` under
 * the key `secret`, the very door HTTP clients use (its key check on every message, its tools, their
 * metering, its log line), and each answer a line on `output`, which carries nothing else. A refusal
 * of the request itself (the key revoked since: 401) is a JSON-RPC error naming the route's answer.
 */
export async function serveMcpStdio(handler: HttpHandler, secret: string, input: Readable, output: Writable): Promise<void> {
  const { StdioServerTransport } = (await import(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ `${MCP_SDK}/stdio`
  )) as typeof import('@modelcontextprotocol/server/stdio');
  const transport = new StdioServerTransport(input, output);
  const ended = new AbortController();
  const from = stdioClient(secret, ended.signal);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  transport.onmessage = (message: JSONRPCMessage) => {
    void relay(message).then((answer) => answer && transport.send(answer));
  };
  async function relay(message: JSONRPCMessage): Promise<JSONRPCMessage | undefined> {
    const response = await handler.handle(innerRequest(from, { method: 'POST', target: '/mcp', body: JSON.stringify(message) }));
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    if (id === undefined) return undefined; // a notification or a response: nothing goes back
    const text = typeof response.body === 'string' ? response.body : '';
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: said by its status alone.
    }
    if (body.jsonrpc === '2.0') return { ...body, id } as JSONRPCMessage;
    const reason = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
    const said = response.status === 401 ? `DOSSIER_KEY was refused: ${reason}` : reason;
    return { jsonrpc: '2.0', id, error: { code: -32000, message: said, data: { status: response.status, body } } };
  }
  await transport.start();
  await closed;
  ended.abort();
}
