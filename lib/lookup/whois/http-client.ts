import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { DossierError } from '../../errors.js';
import { isHttpPort } from './peer.js';
import { abortError, onAbort, resolvePeer, type Reach } from './upstream.js';

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
    const address = await resolvePeer(url.hostname, request.reach, trusted);
    const answer = await getOnce(url, address, request);
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
  address: string,
  { reach, maxBytes, accept }: HttpGetRequest,
): Promise<{ status: number; body: string; location?: string }> {
  const { signal } = reach;
  if (signal.aborted) return Promise.reject(abortError(signal, url.host));
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(address);
  // Connect to the checked address only; Node asks `lookup` instead of resolving the name again.
  const lookup = ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept, 'user-agent': 'dossier (+https://www.npmjs.com/package/dossier)' },
      agent: false,
      lookup,
      servername: isIP(hostname) === 0 ? hostname : undefined,
    });
    let settled = false;
    const finish = (error: DossierError | null, value?: { status: number; body: string; location?: string }): void => {
      if (settled) return;
      settled = true;
      stopListening();
      if (error) {
        req.destroy();
        reject(error);
      } else {
        resolve(value!);
      }
    };
    const stopListening = onAbort(signal, () => finish(abortError(signal, url.host)));
    req.on('error', (cause: NodeJS.ErrnoException) => {
      finish(new DossierError('ERR_UPSTREAM_FAILED', `${url.host} failed (${cause.code ?? cause.message}).`, { cause }));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        res.resume();
        finish(null, { status, body: '', location });
        req.destroy();
        return;
      }
      const tooLong = (): DossierError =>
        new DossierError('ERR_UPSTREAM_FAILED', `${url.host} sent more than ${maxBytes} bytes; the answer was cut off.`);
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
        finish(tooLong());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) finish(tooLong());
        else chunks.push(chunk);
      });
      res.on('end', () => finish(null, { status, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (cause) => finish(new DossierError('ERR_UPSTREAM_FAILED', `${url.host} broke off its answer.`, { cause })));
      res.on('aborted', () => finish(new DossierError('ERR_UPSTREAM_FAILED', `${url.host} broke off its answer.`)));
    });
    req.end();
  });
}
