import Negotiator from 'negotiator';

/**
 * A request as Dossier's HTTP contract reads it, whatever served it: each adapter (Koa, Express,
 * Fastify, fetch) makes one from its framework's request, without copying the body or the headers.
 */
export interface HttpRequest {
  /** The method, upper case. */
  readonly method: string;
  /** The request target as the client sent it: path and query, Dossier's mount prefix included (`/api/dns?domain=x`). */
  readonly target: string;
  /** Where Dossier is mounted in the host's app (`/dossier`), `''` at the root. */
  readonly prefix: string;
  /** A header's value (`name` in lower case); repeated headers joined as HTTP joins them. */
  header(name: string): string | undefined;
  /** The body as it comes, or `null` when there is none to read. */
  readonly body: AsyncIterable<Uint8Array> | null;
  /** Whether the connection is TLS. */
  readonly encrypted: boolean;
  /** The address of the peer that connected, when the runtime tells it. */
  readonly remoteAddress: string | undefined;
  /** Aborted when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** Whether this request's `X-Forwarded-*` are believed, when the framework decides it (Koa's `app.proxy`); else the mount's option does. */
  readonly trustProxy?: boolean;
}

/** Where a request came from, read as Koa reads it (the scheme, host and address the client used). */
export interface ClientFacts {
  /** `http` or `https`. */
  protocol: string;
  /** `host[:port]` the client asked for; `''` when it named none. */
  host: string;
  /** The client's address. */
  ip: string;
}

/** The first of a comma-separated header's values, trimmed. */
function first(value: string): string {
  return value.split(',', 1)[0]!.trim();
}

/**
 * The scheme, host and address of the client. With `trustProxy`, as a reverse proxy in front says
 * (`X-Forwarded-Proto`, `X-Forwarded-Host`, and the last address of `X-Forwarded-For`, the one that
 * proxy added: those before it are whatever the client sent); else as the connection says.
 */
export function clientFacts(request: HttpRequest, trustProxy: boolean): ClientFacts {
  const forwardedProto = trustProxy ? request.header('x-forwarded-proto') : undefined;
  const protocol = request.encrypted ? 'https' : forwardedProto ? first(forwardedProto).toLowerCase() : 'http';
  let host = (trustProxy && request.header('x-forwarded-host')) || request.header('host') || '';
  host = host === '' ? '' : first(host);
  if (host.includes('@')) {
    // A Host with userinfo (`user@host`) is invalid; its host part is what the URL parser reads.
    try {
      host = new URL(`http://${host}`).host;
    } catch {
      host = '';
    }
  }
  const forwardedFor = trustProxy ? request.header('x-forwarded-for') : undefined;
  const last = forwardedFor?.split(',').at(-1)?.trim();
  return { protocol, host, ip: last || request.remoteAddress || '' };
}

/**
 * The first of `types` that the request's `Accept` prefers (quality, then specificity, then the order
 * of `types`); the first of them when it sends no `Accept`; `undefined` when it accepts none.
 */
export function preferredType(request: HttpRequest, types: string[]): string | undefined {
  const accept = request.header('accept');
  if (!accept) return types[0];
  return new Negotiator({ headers: { accept } }).mediaType(types);
}

/** The media type of the body (`application/json`), lower case, without parameters; `undefined` for none or an invalid one. */
export function mediaTypeOf(request: HttpRequest): string | undefined {
  const header = request.header('content-type');
  if (!header) return undefined;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type) ? type : undefined;
}

/** Whether the request says it has a body: chunked, or a `Content-Length` (even 0), as Node's body readers read it. */
export function saysItHasBody(request: HttpRequest): boolean {
  const length = request.header('content-length');
  return request.header('transfer-encoding') !== undefined || (length !== undefined && !Number.isNaN(Number(length)));
}
