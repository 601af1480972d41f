import type { ApiKey } from './key-store.js';
import type { QuotaState } from './quota-store.js';
import type { Page, PageQuery } from './page.js';

/** What a watch looks at (docs/contract.md §11). */
export const WATCH_TYPES = ['ssl', 'whois', 'dns'] as const;

/** What a watch looks at: a certificate, a registration or a zone's records. */
export type WatchType = (typeof WATCH_TYPES)[number];

/** The events a watch announces (the `type` of a webhook body). */
export const WATCH_EVENTS = [
  'ssl.expiring',
  'ssl.changed',
  'ssl.invalid',
  'whois.expiring',
  'whois.changed',
  'dns.changed',
  'check.failed',
] as const;

/** One event a watch announces. */
export type WatchEventType = (typeof WATCH_EVENTS)[number];

/** A watch as its owner sees it. Times are ISO 8601 in UTC. */
export interface Watch {
  id: string;
  type: WatchType;
  domain: string;
  /** Where its events are POSTed; `null` for a watch whose events are only heard in-process. */
  webhookUrl: string | null;
  intervalSeconds: number;
  createdAt: string;
  lastCheckedAt: string | null;
  nextCheckAt: string;
  /** The failure of the last check, `null` when it succeeded (or none ran yet). */
  lastError: string | null;
  /** The key that created it (the limit per key counts these). */
  keyId: string;
  /** The account whose watch it is: only keys of this owner see it. */
  owner: string;
}

/** A watch just created, with its signing secret (`whsec_…`), shown this once. */
export interface CreatedWatch {
  watch: Watch;
  secret: string;
}

/** What {@link Watch} is made from (checked at run time too: a bad field is `ERR_WATCH_INVALID`). */
export interface NewWatch {
  type: WatchType;
  /** A domain, as the lookups take it. */
  domain: string;
  /** An `http` or `https` URL; none for a watch heard only in-process. */
  webhookUrl?: string | null;
  /** 60 to 604800; the type's default when not given. */
  intervalSeconds?: number;
  /** The key whose places it takes (`DOSSIER_WATCHES_PER_KEY`). @default the owner */
  keyId?: string;
  /** The account whose watch it is. @default 'default' */
  owner?: string;
}

/** The body of one event, as POSTed to the webhook and handed to in-process listeners. */
export interface WatchEvent {
  type: WatchEventType;
  watch_id: string;
  domain: string;
  /** When the check that saw it ran (ISO 8601). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Where a delivery stands. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event on its way to a webhook. */
export interface Delivery {
  id: string;
  event: WatchEventType;
  createdAt: string;
  status: DeliveryStatus;
  attempts: number;
  /** The HTTP status of the last attempt's answer, `null` when none came. */
  responseStatus: number | null;
  /** When the next attempt is due; `null` once delivered or failed. */
  nextAttemptAt: string | null;
}

/** Who asks: only watches of this owner are seen. */
export interface WatchOwner {
  /** @default 'default' (the owner of the watches an embedding app makes without naming one) */
  owner?: string;
}

/** Who asks for an on-demand check: the owner, and the key whose daily quota pays for it. */
export interface CheckRequester extends WatchOwner {
  /**
   * The key that asks: one lookup of the watch's type is counted against its daily quota.
   * @default the key that created the watch, when it is a key of the store (a watch an embedding app
   *   made without a key costs nothing)
   */
  key?: ApiKey;
}

/** What asking for an on-demand check came to. */
export interface CheckRequest {
  watch: Watch;
  /**
   * True when a check was started (and counted); false when one of the watch was pending or running
   * already, or the watch is paused (its key expired): then nothing started and nothing was counted.
   */
  started: boolean;
  /** Where the paying key stands against its quota now; `null` when no key pays. */
  quota: QuotaState | null;
}

/** A listener of in-process events. */
export type WatchListener = (event: WatchEvent) => void;

/**
 * Watches (docs/contract.md §11): a key's owner watches a certificate, a registration or a zone, and hears
 * of what changes, by signed webhook and in-process. A watch lives with the key that created it: it is
 * removed when that key is revoked, and paused (no check, no delivery) while the key is expired.
 * Neither the watch requests nor the scheduled checks count against a daily quota; an on-demand check
 * does.
 */
export interface WatchService {
  /**
   * Creates a watch; its first check runs within seconds and sets the baseline.
   * @param options.webhookRequired true where a watch is only heard through its webhook (the HTTP API)
   * @throws DossierValidationError `ERR_WATCH_INVALID` (with `errors` by field) for a bad field;
   *   DossierError `ERR_WATCH_INVALID` for a key that holds its most watches; `ERR_STORE_UNAVAILABLE`
   */
  create(input: NewWatch, options?: { webhookRequired?: boolean }): Promise<CreatedWatch>;
  /** The owner's watches, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  list(who?: WatchOwner): Promise<Watch[]>;
  /**
   * A page of the owner's watches, newest first, with their exact total (docs/contract.md §11).
   * @throws DossierError `ERR_WATCH_INVALID` for a cursor no page of this list gave; `ERR_STORE_UNAVAILABLE`
   */
  page(page: PageQuery, who?: WatchOwner): Promise<Page<Watch>>;
  /** One of the owner's watches. @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE` */
  get(id: string, who?: WatchOwner): Promise<Watch>;
  /**
   * Removes one of the owner's watches: no check and no delivery after it.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  remove(id: string, who?: WatchOwner): Promise<void>;
  /**
   * Removes a watch whatever its owner (for administrators), as its owner would.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  removeAny(id: string): Promise<void>;
  /**
   * Removes every watch the key `keyId` created, as their owner would (done when the key is revoked).
   * @returns how many were removed.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  removeOfKey(keyId: string): Promise<number>;
  /** The watches the key `keyId` created, newest first, whatever their owner. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  ofKey(keyId: string): Promise<Watch[]>;
  /** A page of the watches the key `keyId` created, newest first. @throws as {@link page} */
  pageOfKey(keyId: string, page: PageQuery): Promise<Page<Watch>>;
  /**
   * Runs a check of one of the owner's watches now, beside its schedule. It counts as one lookup of the
   * watch's type against the paying key's daily quota (docs/contract.md §2's rules). While an on-demand check
   * of the watch is pending or running, on any process, another one starts nothing and counts nothing.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`; DossierQuotaError
   *   `ERR_QUOTA_EXCEEDED` when the key's quota is spent (nothing runs)
   */
  check(id: string, who?: CheckRequester): Promise<CheckRequest>;
  /**
   * Gives one of the owner's watches a new signing secret, returned this once. For the next 24 hours each
   * delivery is signed with both the new and the old secret, then with the new one only.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  rotateSecret(id: string, who?: WatchOwner): Promise<CreatedWatch>;
  /**
   * The last 50 deliveries of one of the owner's watches, newest first.
   * @throws DossierError `ERR_WATCH_NOT_FOUND`, `ERR_STORE_UNAVAILABLE`
   */
  deliveries(id: string, who?: WatchOwner): Promise<Delivery[]>;
  /**
   * Calls `listener` with every event of `type` (`'*'` for all) that a check run by this process
   * finds, webhook or not. Returns how to stop listening.
   */
  on(type: WatchEventType | '*', listener: WatchListener): () => void;
}
