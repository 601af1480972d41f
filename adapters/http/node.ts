import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { HttpResponse } from './reply.js';
import type { HttpRequest } from './request.js';

// What the adapters on Node's HTTP server (Koa, Express, Fastify) share: a request of the contract
// made from Node's own, read in place (no WHATWG Request is built), and a streamed answer written
// straight to Node's response.

/** Node's request as the contract reads it. */
class NodeRequest implements HttpRequest {
  private controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly target: string,
    readonly prefix: string,
    readonly trustProxy: boolean | undefined,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    // Every value, joined as a fetch runtime joins them: `headers` keeps only the first of some
    // (Authorization, Content-Type, Host…), and the contract must see a repeated one as every mount does.
    // HTTP/2 names the host :authority.
    const values = this.req.headersDistinct[name] ?? (name === 'host' ? this.req.headersDistinct[':authority'] : undefined);
    return values?.join(', ');
  }

  get body(): AsyncIterable<Uint8Array> {
    return this.req;
  }

  get encrypted(): boolean {
    return (this.req.socket as Partial<TLSSocket>).encrypted === true;
  }

  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      this.res.once('close', () => {
        if (!this.res.writableFinished) controller.abort(new Error('The client closed the connection.'));
      });
    }
    return this.controller.signal;
  }
}

/**
 * A request of the contract over Node's `req` and `res`. `target` is the request target as the client
 * sent it (with the mount's prefix), `prefix` where Dossier is mounted, `trustProxy` the framework's own
 * say on `X-Forwarded-*` when it has one.
 */
export function nodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  prefix: string,
  trustProxy?: boolean,
): HttpRequest {
  return new NodeRequest(req, res, target, prefix, trustProxy);
}

/** Writes a whole answer, or a streamed one (resolving when it is over), to Node's `res`. */
export async function writeNodeResponse(res: ServerResponse, response: HttpResponse): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers()) res.setHeader(name, value);
  if (response.stream === null) res.end(response.body ?? undefined);
  else await writeNodeStream(res, response.stream);
}

/**
 * Writes a streamed body to `res` whose head is set: the head at once, then each piece as it comes,
 * waiting while the client reads slower than they come. A client gone ends the stream (and what makes
 * it); a stream that fails drops the connection, so that the client never takes it for a whole answer.
 * The stream learns whether a piece went to the connection: it is asked for the next one only after
 * writing it, and stopped (`return`) instead of a piece that found the client gone.
 */
export async function writeNodeStream(res: ServerResponse, stream: AsyncIterable<string>): Promise<void> {
  res.flushHeaders();
  const pieces = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { done, value } = await pieces.next();
      if (done) break;
      if (res.destroyed) {
        await pieces.return?.();
        return;
      }
      if (!res.write(value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch {
    res.destroy();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
