import type { TObject, TSchema } from '@sinclair/typebox';
import type { ApiKey } from '../../../lib/index.js';
import { compiledSchema } from '../../../lib/internal.js';
import { DOCUMENT_ROUTES } from '../documents.js';
import { LOOKUP_ROUTES } from '../lookups.js';
import type { HttpResponse } from '../reply.js';
import type { Route } from '../route.js';
import { WATCH_ROUTES } from '../watches.js';

// The MCP tools (docs/contract.md §13) are the routes that name one, read a second way: the name, the
// input schema (the route's path and query parameters and the fields of its body, the very schemas the
// OpenAPI document shows), the output schema (its 2xx body), and a call, which is a request to the route.
// Nothing here decides an answer: the route does, as it does for HTTP.

/** A JSON Schema as plain JSON, TypeBox's own markers (symbols) dropped, as the OpenAPI document writes it. */
type JsonSchema = Record<string, unknown>;
const plain = (schema: TSchema | Record<string, TSchema>): JsonSchema => JSON.parse(JSON.stringify(schema)) as JsonSchema;

/** A tool as `tools/list` shows it. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
}

/** One tool: the route it calls, and what `tools/list` shows of it. */
export interface Tool {
  readonly route: Route;
  readonly listing: ToolListing;
  /** The schema of the route's 2xx body; none for an empty one. */
  readonly output: TSchema | undefined;
}

/** A request to a tool's route: what a call of the tool sends. */
export interface ToolRequest {
  method: string;
  /** Path and query, from the mount's prefix on (`/api/dns?domain=example.com`). */
  target: string;
  /** The JSON body, for a route that reads one. */
  body?: string;
}

/** The names of a route's path parameters (`:id`), in order. */
function pathNames(route: Route): string[] {
  return [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]!);
}

/** The fields of a route's body, and those it requires: the body schema must be an object of fields. */
function bodyFields(route: Route): { properties: Record<string, TSchema>; required: string[] } {
  if (route.body === undefined) return { properties: {}, required: [] };
  const schema = route.body.schema as TObject;
  if (schema.type !== 'object') throw new Error(`${route.tool}: the body of ${route.operationId} is not an object of fields.`);
  return { properties: schema.properties, required: schema.required ?? [] };
}

/** The schema of the first 2xx answer of `route` that has a body. */
function successBody(route: Route): TSchema | undefined {
  return Object.entries(route.responses).find(([status, response]) => status.startsWith('2') && response.body)?.[1].body;
}

function toolOf(route: Route): Tool {
  const name = route.tool!;
  const body = bodyFields(route);
  const properties = { ...route.params?.properties, ...route.query?.properties, ...body.properties };
  const required = [...pathNames(route), ...(route.query?.required ?? []), ...body.required];
  const output = successBody(route);
  if (output !== undefined && output.type !== 'object')
    throw new Error(`${name}: the 2xx body of ${route.operationId} is not an object.`);
  return {
    route,
    output,
    listing: {
      name,
      title: route.summary,
      description: [route.summary, route.description].filter(Boolean).join('. '),
      inputSchema: { type: 'object', properties: plain(properties), ...(required.length > 0 ? { required } : {}) },
      ...(output === undefined ? {} : { outputSchema: plain(output) as ToolListing['outputSchema'] }),
      annotations: { readOnlyHint: route.method === 'get', destructiveHint: route.method === 'delete' },
    },
  };
}

/**
 * The routes that may name a tool: those of the lookups, the watches and the documents. (Not the whole
 * table: `routes.ts` holds the MCP routes too, which read this.)
 */
const TOOL_ROUTES: readonly Route[] = [...LOOKUP_ROUTES, ...WATCH_ROUTES, ...DOCUMENT_ROUTES];

/** Every tool, by name, in the order of the reference page. */
export const TOOLS: ReadonlyMap<string, Tool> = new Map(
  TOOL_ROUTES.filter((route) => route.tool !== undefined).map((route) => [route.tool!, toolOf(route)]),
);

/** The tools `key` may call: those whose route its scopes allow. */
export function toolsFor(key: ApiKey): ToolListing[] {
  return [...TOOLS.values()].filter(({ route }) => allows(key, route)).map((tool) => tool.listing);
}

/** Whether `key` holds the scope `route` needs. */
export function allows(key: ApiKey, route: Route): boolean {
  return route.scope === undefined || key.scopes.includes(route.scope);
}

/** An argument as a path segment or query value: text as it is, anything else as JSON. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The request a call of `tool` with `args` sends to its route: the path parameters in the path, the
 * query parameters in the query, every other argument in a JSON body (for a route that reads one; its
 * rules say what it takes). Values are sent as given: the route checks them.
 * @returns the request, or the name of a path parameter `args` lacks (no request can name the route then)
 */
export function toolRequest(tool: Tool, args: Record<string, unknown>): ToolRequest | { missing: string } {
  const { route } = tool;
  const inPath = pathNames(route);
  const missing = inPath.find((name) => args[name] === undefined || args[name] === null || args[name] === '');
  if (missing !== undefined) return { missing };
  const path = route.path.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => encodeURIComponent(asText(args[name])));
  const query = new URLSearchParams();
  const inQuery = Object.keys(route.query?.properties ?? {});
  for (const name of inQuery) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const each of Array.isArray(value) ? value : [value]) query.append(name, asText(each));
  }
  const search = query.size > 0 ? `?${query}` : '';
  if (route.body === undefined) return { method: route.method.toUpperCase(), target: path + search };
  const fields = Object.entries(args).filter(([name]) => !inPath.includes(name) && !inQuery.includes(name));
  return { method: route.method.toUpperCase(), target: path + search, body: JSON.stringify(Object.fromEntries(fields)) };
}

/** `_meta["dossier/quota"]`: the quota headers of a lookup's answer (docs/contract.md §2, §13). */
export interface QuotaMeta {
  limit: number;
  remaining: number;
  /** Unix seconds of the next UTC midnight. */
  reset: number;
  /** On a refusal: seconds to wait. */
  retry_after?: number;
}

/** A tool's result (docs/contract.md §13), as the MCP schema types it. */
export interface ToolResult {
  [field: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  _meta?: { 'dossier/quota': QuotaMeta };
}

/** The answer's headers by lower-case name. */
function headersOf(response: HttpResponse): Map<string, string> {
  return new Map([...response.headers()].map(([name, value]) => [name.toLowerCase(), String(value)]));
}

/** The body of an answer as text (`''` for none). */
function textOf(response: HttpResponse): string {
  const { body } = response;
  return body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/**
 * The result of a call of `tool` that its route answered with `response`: the body as one text item and,
 * parsed, as `structuredContent` (on a refusal only where the output schema admits it); a refusal
 * (4xx, 5xx) is `isError`; the quota headers of a lookup are `_meta["dossier/quota"]`.
 */
export function toolResult(tool: Tool, response: HttpResponse): ToolResult {
  const text = textOf(response);
  const isError = response.status >= 400;
  const result: ToolResult = { content: text === '' ? [] : [{ type: 'text', text }] };
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    if (!isError || (tool.output !== undefined && compiledSchema(tool.output)(body)))
      result.structuredContent = body as Record<string, unknown>;
  }
  if (isError) result.isError = true;
  const headers = headersOf(response);
  const limit = headers.get('x-ratelimit-limit');
  if (limit !== undefined) {
    const retryAfter = headers.get('retry-after');
    result._meta = {
      'dossier/quota': {
        limit: Number(limit),
        remaining: Number(headers.get('x-ratelimit-remaining')),
        reset: Number(headers.get('x-ratelimit-reset')),
        ...(retryAfter === undefined ? {} : { retry_after: Number(retryAfter) }),
      },
    };
  }
  return result;
}
