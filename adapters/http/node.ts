import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { polled } from './document-stream.js';
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
 * The stream learns whether a piece went to the client as far as the server can tell: each piece is
 * written only if, a turn of the event loop after it was made (a close the client had sent by then has
 * been read), the client is still there, else the stream is stopped (`return`) instead; and the next is
 * asked for only once the piece was handed to the system.
 */
export async function writeNodeStream(res: ServerResponse, stream: AsyncIterable<string>): Promise<void> {
  res.flushHeaders();
  const pieces = stream[Symbol.asyncIterator]();
  try {
    for (let piece = await pieces.next(); !piece.done; piece = await pieces.next()) {
      await polled();
      if (gone(res)) {
        await pieces.return?.();
        return;
      }
      await written(res, piece.value);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * True once the client has closed its side of the connection or the connection is down (Node's server
 * then ends it, whatever is still to write).
 */
function gone(res: ServerResponse): boolean {
  const socket = res.socket;
  return res.destroyed || socket === null || socket.destroyed || socket.readableEnded || !socket.writable;
}

/**
 * Writes `piece` and resolves once it was handed to the system (the client reading slower than the
 * pieces come waits here) or the connection closed.
 */
function written(res: ServerResponse, piece: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('close', done);
      resolve();
    };
    res.on('close', done);
    res.write(piece, done);
  });
}
