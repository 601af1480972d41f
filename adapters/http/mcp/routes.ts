import { Type } from '@sinclair/typebox';
import { sameOrigin } from '../admin/access.js';
import { readText } from '../body.js';
import { answerFailure, RequestError } from '../errors.js';
import { storeDown } from '../lookups.js';
import { mediaTypeOf } from '../request.js';
import { keyOf, type Call, type Route } from '../route.js';
import { JSON_TYPE, type ResponseSpec, type RouteSpec } from '../schemas/define.js';
import { apiError, ApiError, INTERNAL, unauthenticated } from '../schemas/shapes.js';
import { openMcpDoor, PROTOCOL_VERSIONS, type McpCaller } from './server.js';
import { innerRequest } from './inner-request.js';

// `/mcp` (docs/contract.md §13): the Streamable HTTP transport of MCP, stateless, as three routes of the
// table, so that every mount serves it under its prefix. The mount checks the key as for any route of
// `auth: 'key'` (401 with the bearer challenge, and nothing runs); a POST carries one JSON-RPC message,
// which the SDK's server answers; a tool call is a request to its route, made through the same mount.

const JsonRpcId = Type.Union([Type.String(), Type.Integer(), Type.Null()]);

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(JsonRpcId),
    method: Type.Optional(Type.String({ description: '`initialize`, `tools/list`, `tools/call`, `resources/read`, …' })),
    params: Type.Optional(Type.Object({})),
  },
  { title: 'JsonRpcMessage', description: 'One JSON-RPC 2.0 message of MCP: a request, a notification or a response.' },
);

const JsonRpcAnswer = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: JsonRpcId,
    result: Type.Optional(Type.Object({}, { description: 'the result of the request (a tool call: its `CallToolResult`)' })),
    error: Type.Optional(
      Type.Object(
        { code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'JsonRpcAnswer', description: 'The JSON-RPC 2.0 answer to a request: its `result` or its `error`.' },
);

/** The media types a POST may be answered in, the client's preference first. */
const ANSWER_TYPES = ['application/json', 'text/event-stream'];

const refusal = (description: string): ResponseSpec => ({ description, body: ApiError });

const COMMON: Record<number, ResponseSpec> = {
  401: unauthenticated,
  500: INTERNAL,
  501: apiError('This server was built without the MCP SDK (@modelcontextprotocol/server).', ['not_implemented']),
  503: storeDown(),
};

/** A route of `/mcp`: listed under MCP, for any working key (each tool then needs its route's scope). */
const mcpRoute = (
  method: RouteSpec['method'],
  details: Pick<RouteSpec, 'operationId' | 'summary' | 'description' | 'body' | 'responses'>,
  handle: Route['handle'],
): Route => ({
  method,
  path: '/mcp',
  tag: 'MCP',
  auth: 'key',
  ...details,
  responses: { ...details.responses, ...COMMON },
  handle,
});

/** `GET` and `DELETE`: there is no stream to open and no session to end on a stateless server (the MCP specification's 405). */
const notAllowed = (method: 'get' | 'delete', operationId: string, summary: string): Route =>
  mcpRoute(
    method,
    { operationId, summary, responses: { 405: refusal('Not on this stateless server: every message is a POST.') } },
    (call) => {
      call.reply.header('Allow', 'POST');
      answerFailure(
        call.reply,
        call.path,
        405,
        'method_not_allowed',
        'This MCP server is stateless: every message is a POST, there is no stream to open or session to end.',
      );
    },
  );

/** The routes of MCP's Streamable HTTP transport (docs/contract.md §13). */
export const MCP_ROUTES: readonly Route[] = [
  mcpRoute(
    'post',
    {
      operationId: 'mcp',
      summary: 'One message of the Model Context Protocol (Streamable HTTP, stateless)',
      description:
        'The tools are the routes of this API (`tools/list` shows those the key’s scopes allow); a tool call is metered ' +
        'and refused exactly as its route. Protocol versions ' +
        PROTOCOL_VERSIONS.join(' and ') +
        '. A browser page of another origin is refused.',
      body: { schema: JsonRpcMessage, types: ['application/json'], required: true },
      responses: {
        200: {
          description: 'The answer to a request, as JSON or as one Server-Sent Event (`event: message`), as the client prefers.',
          body: JsonRpcAnswer,
          alternatives: { 'text/event-stream': Type.String({ description: 'one `event: message` whose data is the answer' }) },
        },
        202: { description: 'A notification or a response: taken, with nothing to answer.' },
        400: { description: 'Not one JSON-RPC message, or a protocol version this server does not speak.', body: JsonRpcAnswer },
        403: apiError('The request came from a page of another origin (`Origin`).', ['invalid_origin']),
        406: refusal('The client accepts neither application/json nor text/event-stream.'),
        413: refusal('The body is larger than 64 KiB.'),
        415: refusal('The body is not application/json.'),
      },
    },
    answerMessage,
  ),
  notAllowed('get', 'mcpStream', 'No stream of server messages (stateless): 405'),
  notAllowed('delete', 'mcpSession', 'No session to end (stateless): 405'),
];

/** A JSON-RPC error answer, outside any request (its id unknown: `null`). */
function rpcError(call: Call, code: number, message: string): void {
  call.reply.json({ jsonrpc: '2.0', id: null, error: { code, message } }, 400);
}

/** A JSON-RPC message, read as little as routing it needs: a request, or anything else (a notification, a response). */
function kindOf(message: unknown): 'request' | 'other' | 'invalid' {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'invalid';
  const { jsonrpc, id, method } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0') return 'invalid';
  if (typeof method !== 'string') return id !== undefined ? 'other' : 'invalid';
  return typeof id === 'string' || typeof id === 'number' ? 'request' : 'other';
}

/** `POST /mcp`: one JSON-RPC message, handed to the SDK's server and answered as the client prefers. */
async function answerMessage(call: Call): Promise<void> {
  const { request, reply } = call;
  if (request.header('origin') !== undefined && !sameOrigin(request, call.client())) {
    answerFailure(reply, call.path, 403, 'invalid_origin', 'MCP requests from a page of another origin are refused.');
    return;
  }
  const type = call.accepts(...ANSWER_TYPES);
  if (type === undefined) throw new RequestError(406, 'bad_request', 'Accept application/json or text/event-stream.');
  if (mediaTypeOf(request) !== 'application/json')
    throw new RequestError(415, 'bad_request', 'The body must be application/json.');
  const text = await readText(request);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return rpcError(call, -32700, 'Parse error: the body is not JSON.');
  }
  const kind = kindOf(message);
  if (kind === 'invalid') {
    const batch = Array.isArray(message) ? ' (one message a request: MCP has no batches since 2025-06-18)' : '';
    return rpcError(call, -32600, `Invalid Request: not a JSON-RPC 2.0 message${batch}.`);
  }
  const version = request.header('mcp-protocol-version');
  if (version !== undefined && !PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(
      call,
      -32600,
      `Unsupported MCP-Protocol-Version ${version}: this server speaks ${PROTOCOL_VERSIONS.join(', ')}.`,
    );
  }
  const { method, params } = message as { method?: string; params?: { name?: unknown } };
  const tool = method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
  if (method !== undefined) call.context.mcp = { method, ...(tool === undefined ? {} : { tool }) };
  const door = await openMcpDoor();
  if (kind === 'other') {
    // A notification (`initialized`, `cancelled`) or a response: a stateless server has nothing to do with it.
    // Its length said, as Node's frameworks say it of an empty body (a fetch runtime would stream it).
    reply.empty(202).header('Content-Length', 0);
    return;
  }
  // As the SDK reads a request (`params` an object, …): a message it cannot read it would never answer.
  if (!door.sdk.isJSONRPCRequest(message)) return rpcError(call, -32600, 'Invalid Request: not a JSON-RPC 2.0 request of MCP.');
  const answer = JSON.stringify(await door.transport.exchange(message, callerOf(call)));
  if (type === 'application/json') reply.send(200, JSON_TYPE, answer);
  else
    reply
      .header('Cache-Control', 'no-cache')
      .send(200, 'text/event-stream; charset=utf-8', `event: message\ndata: ${answer}\n\n`);
}

/** The caller of `call`'s message: its key, and the way to the route table through the same mount. */
function callerOf(call: Call): McpCaller {
  return {
    key: keyOf(call),
    send: (request) => call.mount.answer(innerRequest(call.request, request), call.context),
    called: (tool, status) => call.mount.metrics?.toolCall(tool, status < 400 ? 'success' : status < 500 ? 'refused' : 'failed'),
  };
}
