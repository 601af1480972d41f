import type { SecureContext } from 'node:tls';
import { DossierError } from '../errors.js';
import { onAbort } from '../lookup/net/abort.js';
import { readCapped } from '../lookup/net/capped-read.js';
import { guardedHttpRequest } from '../lookup/net/http-request.js';
import type { Reach } from '../lookup/net/reach.js';
import { webhookPort } from './watch-rules.js';

/** The most bytes of a receiver's answer that are read (docs/contract.md §11). */
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
 * status), never followed. Once the status has come, the answer's body is read up to
 * {@link ANSWER_BYTES_READ} or until the deadline, whichever comes first, and the status stands
 * however the body ends: a receiver that answers at once and trickles its body is answered by its
 * status, never by a timeout.
 * @returns the answer's status
 * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`
 *   (no status within the deadline)
 */
export async function postWebhook({ url: text, headers, body, reach, secureContext }: WebhookPost): Promise<number> {
  const url = new URL(text);
  const beforeStatus = new AbortController();
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
    // The request's own signal ends it only while no status has come; after, the deadline ends the read.
    reach: { ...reach, signal: beforeStatus.signal },
    secureContext,
    name: `The webhook ${url.host}`,
  };
  let answered: (() => void) | undefined;
  const stopListening = onAbort(reach.signal, () =>
    answered === undefined ? beforeStatus.abort(reach.signal.reason) : answered(),
  );
  try {
    return await guardedHttpRequest<number>(request, (res, outcome) => {
      const status = res.statusCode ?? 0;
      answered = () => outcome.resolve(status);
      // The answer is read (up to the cap) so that the receiver sees its answer taken; what is past the
      // cap is left unread, and the connection closed.
      readCapped(res, { maxBytes: ANSWER_BYTES_READ, tooLong: () => new DossierError('ERR_UPSTREAM_FAILED', 'cut') }).then(
        answered,
        answered,
      );
    });
  } finally {
    stopListening();
  }
}
