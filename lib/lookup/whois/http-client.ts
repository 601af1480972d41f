import { DossierError } from '../../errors.js';
import { isHttpPort } from './peer.js';
import { readCapped } from '../net/capped-read.js';
import { guardedHttpRequest } from '../net/http-request.js';
import type { Reach } from '../net/reach.js';

/** One GET of {@link httpGet}. */
export interface HttpGetRequest {
  /** An `http:` or `https:` URL. */
  url: string;
  /** True for a server the operator configured: its address is not held to the public-address rule. */
  trusted: boolean;
  /** Resolver, rules and the signal that stops the request. */
  reach: Reach;
  /** The most bytes of body read; a longer body fails the request. */
  maxBytes: number;
  /** The `Accept` header. */
  accept: string;
}

/** The final answer of {@link httpGet}. */
export interface HttpAnswer {
  status: number;
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
}

const MAX_REDIRECTS = 3;

/**
 * GETs a URL over `node:http`/`node:https` without a second DNS resolution: the host is resolved once
 * through Dossier's resolver, checked, and the socket connects to exactly that address (with the host
 * name kept for `Host` and SNI). Redirects are followed, each hop resolved and checked anew; a hop to
 * another host than a trusted one is not trusted. An untrusted URL must use port 80, 443 or an
 * unprivileged one ({@link isHttpPort}); any other is refused before any resolution or connection.
 * The body is read up to `maxBytes`.
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`; `ERR_UPSTREAM_FAILED` (connection, TLS,
 *   too many redirects, body too long, a refused port); `ERR_UPSTREAM_TIMEOUT` or the signal's reason when it aborts.
 */
export async function httpGet(request: HttpGetRequest): Promise<HttpAnswer> {
  let url = new URL(request.url);
  const trustedHost = request.trusted ? url.host : undefined;
  for (let hop = 0; ; hop += 1) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DossierError('ERR_UPSTREAM_FAILED', `${url.protocol} is not an HTTP URL.`);
    }
    const trusted = url.host === trustedHost;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    if (!trusted && !isHttpPort(port)) {
      throw new DossierError('ERR_UPSTREAM_FAILED', `${url.host}: port ${port} is not an HTTP port Dossier connects to.`);
    }
    const answer = await getOnce(url, trusted, port, request);
    if (answer.location === undefined) return { status: answer.status, body: answer.body, url: url.href };
    if (hop >= MAX_REDIRECTS) throw new DossierError('ERR_UPSTREAM_FAILED', `${url.host} redirected too many times.`);
    try {
      url = new URL(answer.location, url);
    } catch (cause) {
      throw new DossierError('ERR_UPSTREAM_FAILED', `${url.host} redirected to a malformed URL.`, { cause });
    }
  }
}

function getOnce(
  url: URL,
  trusted: boolean,
  port: number,
  { reach, maxBytes, accept }: HttpGetRequest,
): Promise<{ status: number; body: string; location?: string }> {
  const headers = { accept, 'user-agent': 'dossier (+https://www.npmjs.com/package/dossier)' };
  return guardedHttpRequest({ url, port, trusted, method: 'GET', headers, reach, name: url.host }, (res, outcome) => {
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      res.resume();
      outcome.resolve({ status, body: '', location });
      return;
    }
    const tooLong = (): DossierError =>
      new DossierError('ERR_UPSTREAM_FAILED', `${url.host} sent more than ${maxBytes} bytes; the answer was cut off.`);
    readCapped(res, { maxBytes, declaredBytes: Number(res.headers['content-length'] ?? 0), tooLong }).then(
      (body) => outcome.resolve({ status, body: body.toString('utf8') }),
      outcome.reject,
    );
  });
}
