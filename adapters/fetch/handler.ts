import type { Dossier } from '../../lib/index.js';
import {
  createHttpHandler,
  mountPrefix,
  requestIdFrom,
  type HttpOptions,
  type HttpRequest,
  type HttpResponse,
} from '../http/index.js';

/** How Dossier is mounted in a fetch runtime. */
export interface FetchOptions extends HttpOptions {
  /** Where Dossier's paths are (`/dossier`), when the app routes only those to it. @default '' */
  prefix?: string;
}

/** What the runtime knows of the connection, which a `Request` does not carry. */
export interface FetchClient {
  /** The address of the peer that connected (the panel's sign-in lock-out is per address). */
  address?: string;
  /**
   * The request target as the client sent it (Node's `req.url`), when the runtime has it: a `Request`'s
   * URL has its dot segments resolved (`/api/../healthz` is `/healthz`), which the contract never does.
   */
  target?: string;
}

/** Answers a WHATWG `Request` with Dossier's HTTP contract. */
export type FetchHandler = (request: Request, client?: FetchClient) => Promise<Response>;

/** A `Request` as the contract reads it. */
class FetchRequest implements HttpRequest {
  readonly target: string;
  readonly encrypted: boolean;

  constructor(
    private readonly request: Request,
    readonly prefix: string,
    readonly remoteAddress: string | undefined,
    target: string | undefined,
  ) {
    const url = new URL(request.url);
    this.target = target ?? url.pathname + url.search;
    this.encrypted = url.protocol === 'https:';
  }

  get method(): string {
    return this.request.method;
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  get body(): AsyncIterable<Uint8Array> | null {
    return this.request.body as AsyncIterable<Uint8Array> | null;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/**
 * All of Dossier's HTTP contract as a fetch handler, `(request) => Promise<Response>`, for the runtimes
 * and frameworks built on WHATWG requests: Hono (`app.all('*', (c) => handle(c.req.raw))`), Next.js route
 * handlers, Bun, Deno, and Node through `@hono/node-server`. Give it the client's address when the
 * runtime tells it, and the request target as sent when it has it (`handle(request, { address, target })`).
 * @throws DossierError `ERR_CONFIG_INVALID` when a peer dependency is not installed (see createHttpHandler)
 */
export function createFetchHandler(dossier: Dossier, options: FetchOptions = {}): FetchHandler {
  const http = createHttpHandler(dossier, options);
  const prefix = mountPrefix(options.prefix);
  return async (request, client) =>
    toResponse(await http.handle(new FetchRequest(request, prefix, client?.address, client?.target)), request.method);
}

/** The contract's answer as a WHATWG `Response` (without a body for HEAD). */
function toResponse(response: HttpResponse, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of response.headers()) headers.set(name, String(value));
  const init = { status: response.status, headers };
  if (response.stream !== null) return new Response(readable(response.stream), init);
  return new Response(method === 'HEAD' || response.body === null ? null : (response.body as BodyInit), init);
}

/** A streamed body as a byte stream, read as the client reads it; a failure errors it, which cuts the answer. */
function readable(stream: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const pieces = stream[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await pieces.return?.();
    },
  });
}

/**
 * The `errorHandler` of `@hono/node-server` (`createAdaptorServer({ fetch, errorHandler:
 * answerRequestError })`): a request it can make no `Request` of (a target that is no URL such as
 * `OPTIONS *`, a path with `\`, a missing or bad `Host`) gets Dossier's JSON 400 with an `X-Request-Id`,
 * as Node's own parser errors do (answerClientErrorsWithJson), instead of an empty 400. Anything else
 * that reaches it is a 500 that says nothing of it.
 */
export function answerRequestError(error: unknown): Response {
  const unreadable = error instanceof Error && error.name === 'RequestError';
  const [status, code, message] = unreadable
    ? [400, 'bad_request', 'The request could not be read.']
    : [500, 'internal_error', 'Something went wrong on our side.'];
  return new Response(JSON.stringify({ status: 'error', code, message }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestIdFrom(undefined) },
  });
}
