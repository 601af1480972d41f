import { isIP } from 'node:net';
import { DossierValidationError, isDossierError } from '../errors.js';
import type { LookupService } from '../ports/lookup-service.js';
import { isHttpPort } from '../lookup/whois/peer.js';
import { isPublicAddress } from '../lookup/net/special-range.js';
import { WATCH_TYPES, type WatchType } from '../ports/watches.js';
import { hasNul, NUL_PHRASE } from '../schemas/text.js';

/** The interval of a watch by type when none is given, in seconds (docs/contract.md §11). */
export const DEFAULT_INTERVALS: Record<WatchType, number> = { ssl: 3600, whois: 86_400, dns: 900 };
/** The shortest interval between two checks, in seconds. */
export const MIN_INTERVAL_SECONDS = 60;
/** The longest interval between two checks, in seconds: a week. */
export const MAX_INTERVAL_SECONDS = 604_800;
/** The longest webhook URL. */
export const WEBHOOK_URL_MAX = 2048;

/** A new watch's fields, checked and with defaults applied. */
export interface CheckedWatch {
  type: WatchType;
  domain: string;
  webhookUrl: string | null;
  intervalSeconds: number;
}

/** What {@link checkNewWatch} reads. */
export interface WatchFields {
  type: unknown;
  domain: unknown;
  webhookUrl?: unknown;
  intervalSeconds?: unknown;
}

/**
 * Checks the fields of a new watch (docs/contract.md §11), each problem under its field's name.
 * @param webhookRequired true for the HTTP API, where a watch is only heard through its webhook
 * @param allowPrivate `DOSSIER_ALLOW_PRIVATE_TARGETS`: a literal private address is refused unless it is set
 * @throws DossierValidationError `ERR_WATCH_INVALID`, with `errors` by field
 */
export function checkNewWatch(
  fields: WatchFields,
  lookups: LookupService,
  { webhookRequired, allowPrivate }: { webhookRequired: boolean; allowPrivate: boolean },
): CheckedWatch {
  const errors: Record<string, string[]> = {};
  const type = WATCH_TYPES.find((candidate) => candidate === fields.type);
  if (type === undefined) {
    errors.type = [
      fields.type === undefined ? 'The type field is required.' : `The type must be one of ${WATCH_TYPES.join(', ')}.`,
    ];
  }
  let domain = '';
  if (fields.domain === undefined) errors.domain = ['The domain field is required.'];
  else {
    try {
      domain = lookups.parse(type ?? 'dns', fields.domain);
    } catch (error) {
      if (!isDossierError(error)) throw error;
      errors.domain = [error.message];
    }
  }
  let webhookUrl: string | null = null;
  if (fields.webhookUrl === undefined || fields.webhookUrl === null) {
    if (webhookRequired) errors.webhookUrl = ['The webhook url field is required.'];
  } else {
    const problem = webhookProblem(fields.webhookUrl, allowPrivate);
    if (problem === undefined) webhookUrl = new URL(fields.webhookUrl as string).href;
    else errors.webhookUrl = [problem];
  }
  let intervalSeconds = type === undefined ? 0 : DEFAULT_INTERVALS[type];
  if (fields.intervalSeconds !== undefined) {
    const interval = fields.intervalSeconds;
    if (
      typeof interval !== 'number' ||
      !Number.isInteger(interval) ||
      interval < MIN_INTERVAL_SECONDS ||
      interval > MAX_INTERVAL_SECONDS
    ) {
      errors.intervalSeconds = [
        `The interval seconds must be a whole number from ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS}.`,
      ];
    } else intervalSeconds = interval;
  }
  if (Object.keys(errors).length > 0) throw new DossierValidationError('ERR_WATCH_INVALID', errors);
  return { type: type!, domain, webhookUrl, intervalSeconds };
}

/**
 * What is wrong with a webhook URL, if anything: no U+0000, `http` or `https` on port 80, 443 or an unprivileged
 * one, without userinfo, and not a literal non-public address (unless `allowPrivate`). A name is
 * resolved and checked at every delivery instead.
 */
export function webhookProblem(value: unknown, allowPrivate: boolean): string | undefined {
  if (typeof value !== 'string') return 'The webhook url must be a string.';
  // Refused, not percent-encoded away by the URL parser: U+0000 is never text (lib/schemas/text.ts).
  if (hasNul(value)) return `The webhook url ${NUL_PHRASE}.`;
  if (value.length > WEBHOOK_URL_MAX) return `The webhook url must not be longer than ${WEBHOOK_URL_MAX} characters.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The webhook url must be an absolute http or https URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The webhook url must be an http or https URL.';
  if (url.username !== '' || url.password !== '') return 'The webhook url must not carry a user name or password.';
  if (!isHttpPort(webhookPort(url))) return 'The webhook url must use port 80, 443 or one from 1024 up.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
    return 'The webhook url must not point to a loopback, private, link-local or otherwise non-public address.';
  }
  return undefined;
}

/** The port a webhook URL connects to. */
export function webhookPort(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}
