import { encodeUrl, escapeHtml } from './escape.js';
import { JSON_TYPE } from './schemas/define.js';

/**
 * An answer as Dossier's HTTP contract makes it, for an adapter to write in its framework's way:
 * status, headers in the order they were set, and a body that is whole or comes piece by piece.
 */
export interface HttpResponse {
  readonly status: number;
  /** Name and value of each header, in the order set (a header set again keeps its place). */
  headers(): Iterable<[string, string | number]>;
  /** The whole body (also on a HEAD answer, whose writer sends none); `null` for none or a stream. */
  readonly body: string | Uint8Array | null;
  /**
   * A body written as it comes (Server-Sent Events, NDJSON): each piece to be sent at once, the head
   * before the first. When the iteration throws, the answer was cut short: the writer drops the
   * connection, so that the client never takes it for a complete one.
   */
  readonly stream: AsyncIterable<string> | null;
}

/** The answer being made to one request: what the routes' handlers write. */
export class Reply implements HttpResponse {
  /** The status; 0 until a handler sets one. */
  status = 0;
  body: string | Uint8Array | null = null;
  stream: AsyncIterable<string> | null = null;
  /** Name and value of each header, in the order first set: a handful, which a scan finds faster than a map. */
  private readonly list: [string, string | number][] = [];

  headers(): Iterable<[string, string | number]> {
    return this.list;
  }

  /** Sets a header (again, in any case: in its place). */
  header(name: string, value: string | number): this {
    for (const entry of this.list) {
      const set = entry[0];
      if (set === name || (set.length === name.length && set.toLowerCase() === name.toLowerCase())) {
        entry[0] = name;
        entry[1] = value;
        return this;
      }
    }
    this.list.push([name, value]);
    return this;
  }

  /** Answers `body` as `type`. */
  send(status: number, type: string, body: string | Uint8Array): this {
    this.status = status;
    this.header('Content-Type', type);
    this.body = body;
    return this;
  }

  /** Answers `value` as JSON. */
  json(value: unknown, status = 200): this {
    return this.send(status, JSON_TYPE, JSON.stringify(value));
  }

  /** Answers with no body. */
  empty(status: number): this {
    this.status = status;
    this.body = null;
    return this;
  }

  /**
   * Sends the client to `url` with `status`, and a line that says so: in HTML for a client that
   * takes HTML, else in plain text (as Koa's `redirect` answers).
   */
  redirect(url: string, status: number, html: boolean): this {
    this.header('Location', encodeUrl(url));
    return html
      ? this.send(status, 'text/html; charset=utf-8', `Redirecting to ${escapeHtml(url)}.`)
      : this.send(status, 'text/plain; charset=utf-8', `Redirecting to ${url}.`);
  }

  /** Answers 200 with `headers` and a body written as it comes. */
  streamed(headers: Record<string, string>, stream: AsyncIterable<string>): this {
    this.status = 200;
    for (const [name, value] of Object.entries(headers)) this.header(name, value);
    this.stream = stream;
    return this;
  }

  /** Adds `Content-Length` to a whole body, last, as Node's frameworks do. */
  finish(): this {
    if (this.body !== null) {
      this.header('Content-Length', typeof this.body === 'string' ? Buffer.byteLength(this.body) : this.body.byteLength);
    }
    return this;
  }
}
