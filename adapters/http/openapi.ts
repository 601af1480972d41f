import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { dossierVersion } from '../version.js';
import { isDocumentPath } from './errors.js';
import type { Route } from './route.js';
import { Router } from './router.js';
import { ROUTES } from './routes.js';
import { HEADERS, JSON_MEDIA, type HeaderName, type ResponseSpec, type RouteSpec } from './schemas/define.js';
import { ApiErrorWith, DocumentError } from './schemas/shapes.js';

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, unknown>> };

/** `/api/v1/documents/:id` → `/api/v1/documents/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/** A schema as plain JSON: TypeBox's own markers (symbols) dropped. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

type Json = Record<string, unknown>;

/**
 * The document's named schemas (`components.schemas`), gathered while the operations are written: every
 * schema with a `title` is declared once under it and referenced (`$ref`) wherever it appears, so that a
 * generated client has a `Document`, a `Key`, an `ApiError` … to import. Two different schemas may not
 * share a title.
 */
class NamedSchemas {
  readonly schemas: Record<string, Json> = {};

  /** `schema` as plain JSON, each titled part of it (itself included) replaced by a reference. */
  use(schema: TSchema): Json {
    return this.named(plain(schema)) as Json;
  }

  private named(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.named(item));
    if (typeof value !== 'object' || value === null) return value;
    const schema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, this.named(inner)]));
    const title = schema.title;
    if (typeof title !== 'string') return schema;
    const known = this.schemas[title];
    if (known === undefined) this.schemas[title] = schema;
    else if (JSON.stringify(known) !== JSON.stringify(schema))
      throw new Error(`Two different schemas are titled ${title}; the document names each schema once.`);
    return { $ref: `#/components/schemas/${title}` };
  }
}

function parameters(where: 'path' | 'query', object: TObject | undefined): Record<string, unknown>[] {
  if (object === undefined) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).map(([name, schema]) => {
    const { description, ...rest } = plain(schema);
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description !== undefined ? { description } : {}),
      schema: rest,
    };
  });
}

/** Why a route that reads `Authorization` refuses a request with 400 before anything else (see the handler's `admitted`). */
const SEVERAL_CREDENTIALS = 'Two `Authorization` headers, or a list of credentials in one; nothing is counted.';

/**
 * The answers of `route`, with the 400 that every route reading `Authorization` gives to several
 * credentials, in its interface's error body: declared here, once, rather than in each route table.
 */
function responsesOf(route: RouteSpec): Record<number, ResponseSpec> {
  if (route.auth === 'none') return route.responses;
  const body = isDocumentPath(route.path) ? DocumentError : ApiErrorWith('invalid_request');
  const own = route.responses[400];
  if (own === undefined) return { ...route.responses, 400: { description: SEVERAL_CREDENTIALS, body } };
  // A 400 of the route's own in the same body (`invalid_request`) already says it; another one widens.
  const same = own.body === undefined || JSON.stringify(own.body) === JSON.stringify(body);
  return {
    ...route.responses,
    400: {
      ...own,
      description: `${own.description} ${SEVERAL_CREDENTIALS}`,
      body: same ? body : Type.Union([own.body!, body]),
    },
  };
}

function operation(route: RouteSpec, named: NamedSchemas): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(responsesOf(route))) {
    const headers = Object.fromEntries(
      Object.entries({ 'X-Request-Id': true, ...response.headers }).map(([name, required]) => {
        const { description, schema } = HEADERS[name as HeaderName];
        return [name, { description, required, schema: plain(schema) }];
      }),
    );
    const content: Record<string, unknown> = {};
    if (response.body !== undefined) content[response.contentType ?? JSON_MEDIA] = { schema: named.use(response.body) };
    for (const [type, schema] of Object.entries(response.alternatives ?? {})) content[type] = { schema: named.use(schema) };
    responses[status] = {
      description: response.description,
      headers,
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  const security = route.auth === 'key' ? [{ apiKey: [] }] : route.auth === 'admin' ? [{ adminToken: [] }] : [];
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description !== undefined ? { description: route.description } : {}),
    tags: [route.tag],
    security,
    ...(route.scope !== undefined ? { 'x-scope': route.scope } : {}),
    parameters: [...parameters('path', route.params), ...parameters('query', route.query)],
    ...(route.body !== undefined
      ? {
          requestBody: {
            required: route.body.required ?? false,
            // Inline, not named: a generator reads a named schema's defaulted fields as always there,
            // and a request may leave them out.
            content: Object.fromEntries(route.body.types.map((type) => [type, { schema: plain(route.body!.schema) }])),
          },
        }
      : {}),
    responses,
  };
}

/**
 * Builds the OpenAPI 3.1 document of `routes` (every route of Dossier by default), but those a route
 * table leaves out of it (`hidden`: the panel's own pages).
 */
export function buildOpenApiDocument(routes: readonly RouteSpec[] = ROUTES): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const named = new NamedSchemas();
  for (const route of routes) {
    if ((route as Partial<Route>).hidden) continue;
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation(route, named);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dossier',
      version: dossierVersion(),
      summary: 'Domain lookups (DNS, whois/RDAP, IP, TLS) and phpContent-compatible documents.',
      description:
        'Interface A (lookups) answers `{"status","data","cached"}` and `{"status":"error","code","message"}`; interface B ' +
        "(documents) answers phpContent's Laravel-shaped bodies. Every answer carries `X-Request-Id`. This document " +
        'describes every route of the API; the admin panel’s own pages (its sign-in and sign-out forms, key pages and ' +
        'assets) are HTML for a browser, not calls of the API, and are left out; so are the documents workspace’s ' +
        '(`/workspace`: its pages, and the routes of interface B served again under its session cookie, for its script).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'Lookups', description: 'Interface A: DNS, whois/RDAP, IP and TLS lookups, behind a key with a daily quota.' },
      { name: 'Documents', description: 'Interface B: phpContent-compatible documents written by a text generator.' },
      { name: 'MCP', description: 'The Model Context Protocol: the routes of both interfaces as tools, for AI agents.' },
      { name: 'Administration', description: "Keys, with DOSSIER_ADMIN_TOKEN (or the panel's session cookie)." },
      { name: 'Operations', description: 'Health, readiness, metrics and this reference.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(named.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A key made with `dossier keys create` or the admin API.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'DOSSIER_ADMIN_TOKEN.' },
      },
    },
  };
}

let served: { document: OpenApiDocument; text: string } | undefined;

/** The document of every route, built once per process, and its JSON text. */
export function openApiDocument(): { document: OpenApiDocument; text: string } {
  if (served === undefined) {
    const document = buildOpenApiDocument();
    served = { document, text: JSON.stringify(document) };
  }
  return served;
}

/** The document's text for each prefix Dossier is mounted under (a mount's, not a client's: a few). */
const servedUnder = new Map<string, string>();

/**
 * The JSON text of the document as a mount under `prefix` (`/dossier`, `''` at the root) serves it: under
 * a prefix, `servers` names it, so that a client of the document (Swagger UI's "Try it out" on /docs)
 * calls the API inside it; relative, so that it holds whatever host and scheme the app is reached on.
 */
export function openApiText(prefix: string): string {
  if (prefix === '') return openApiDocument().text;
  let text = servedUnder.get(prefix);
  if (text === undefined) {
    const { openapi, info, ...rest } = openApiDocument().document;
    text = JSON.stringify({ openapi, info, servers: [{ url: prefix, description: 'Where this app mounts Dossier.' }], ...rest });
    servedUnder.set(prefix, text);
  }
  return text;
}

const router = new Router(ROUTES);

/**
 * The declared route pattern a path falls under (`/api/v1/documents/7` → `/api/v1/documents/:id`), as
 * the router matches it (case-insensitively, with or without a trailing slash); `null` for any other
 * path. A bounded set: what metrics and logs label a request with, never the raw path.
 */
export function routePatternOf(path: string): string | null {
  return router.match(path)?.routes.label ?? null;
}
