import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a signing secret, as the Standard Webhooks specification writes them. */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The headers that sign one attempt of a delivery, as the Standard Webhooks specification says (its own
 * package signs): `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (`v1,<base64 of HMAC-SHA256("<id>.<timestamp>.<body>")>`, keyed by the secret's decoded bytes), one
 * signature per secret, separated by spaces as the specification allows (a secret being rotated).
 * @param secrets the watch's secret, then the one it replaced while that still signs
 * @param now ms since the epoch, from the Clock: each attempt is signed at its own time, so that a
 *   receiver's tolerance on the timestamp holds for a retry too
 */
export function signatureHeaders(secrets: readonly string[], id: string, body: string, now: number): Record<string, string> {
  const at = new Date(Math.floor(now / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}
