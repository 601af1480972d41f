import type { SecureContext } from 'node:tls';
import { DossierError } from '../errors.js';
import { readCapped } from '../lookup/net/capped-read.js';
import { guardedHttpRequest } from '../lookup/net/http-request.js';
import type { Reach } from '../lookup/net/reach.js';
import { webhookPort } from './watch-rules.js';

/** The most bytes of a receiver's answer that are read (CONTRACT.md §11). */
export const ANSWER_BYTES_READ = 64 * 1024;

/** One POST of {@link postWebhook}. */
export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Resolver, address rules and the signal that ends the attempt (its 10 s deadline). */
  reach: Reach;
  /** Whom an `https` receiver's certificate must chain to. @default Node's roots */
  secureContext?: SecureContext;
}

/**
 * POSTs one webhook body the way lookups connect: the URL's host resolved once through Dossier's
 * resolver, every address checked against the rules of the lookups, and the socket opened to exactly
 * the address checked (the name kept for `Host` and SNI). A redirect is an answer like any other (its
 * status), never followed; at most {@link ANSWER_BYTES_READ} of the answer is read, the rest left unread.
 * @returns the answer's status
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`
 */
export async function postWebhook({ url: text, headers, body, reach, secureContext }: WebhookPost): Promise<number> {
  const url = new URL(text);
  const payload = Buffer.from(body);
  const request = {
    url,
    port: webhookPort(url),
    trusted: false,
    method: 'POST' as const,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(payload.byteLength),
      'user-agent': 'dossier-webhooks (+https://www.npmjs.com/package/dossier)',
    },
    body: payload,
    reach,
    secureContext,
    name: `The webhook ${url.host}`,
  };
  return guardedHttpRequest<number>(request, (res, outcome) => {
    const status = res.statusCode ?? 0;
    // The answer is read (up to the cap) so that the receiver sees its answer taken; what is past
    // the cap is left unread and the connection closed.
    const cut = new DossierError('ERR_UPSTREAM_FAILED', 'cut');
    readCapped(res, { maxBytes: ANSWER_BYTES_READ, tooLong: () => cut }).then(
      () => outcome.resolve(status),
      (error: unknown) => (error === cut ? outcome.resolve(status) : outcome.reject(error)),
    );
  });
}
