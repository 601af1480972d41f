/** What a key may do: `lookup` for interface A, `documents` for interface B. */
export type Scope = 'lookup' | 'documents';

/** Where a key stands: `revoked` wins over `expired`. */
export type KeyStatus = 'active' | 'revoked' | 'expired';

/** A key as stored: everything but the secret, which is kept only as its SHA-256 digest. */
export interface ApiKey {
  /** Public identifier, used to list, change, roll and revoke. */
  id: string;
  /** A label for people. */
  name: string;
  /** The account whose documents the key sees. */
  owner: string;
  /** What the key may do. */
  scopes: Scope[];
  /** Daily lookup quota; `null` follows the configured default. */
  dailyLimit: number | null;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC, or `null` while the key works. */
  revokedAt: string | null;
  /** ISO 8601 UTC instant from which the key is refused, or `null` for never. */
  expiresAt: string | null;
}

/** What a new key is made from. */
export interface NewKey {
  /** A label for people. */
  name: string;
  /** The account; a new random one when absent. */
  owner?: string;
  /** @default ['lookup', 'documents'] */
  scopes?: Scope[];
  /** Daily lookup quota; absent follows the configured default. */
  dailyLimit?: number | null;
  /** ISO 8601 date (`YYYY-MM-DD`, midnight UTC) or instant, in the future; absent or `null` for never. */
  expiresAt?: string | null;
}

/** What {@link KeyStore.update} may change; absent fields stay as they are. */
export interface KeyChanges {
  /** A label for people. */
  name?: string;
  /** What the key may do. */
  scopes?: Scope[];
  /** Daily lookup quota; `null` follows the configured default. */
  dailyLimit?: number | null;
  /** A future ISO 8601 date or instant, or `null` for never. */
  expiresAt?: string | null;
}

/** Creates, finds, changes, rolls and revokes bearer keys. */
export interface KeyStore {
  /**
   * Makes a key. The plaintext `secret` is returned this once and never stored.
   * @throws DossierValidationError for a bad name, owner, scope, limit or expiry;
   *   DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  create(input: NewKey): Promise<{ key: ApiKey; secret: string }>;
  /**
   * Finds the working key behind a plaintext secret: `null` when unknown, revoked, expired, or an old
   * secret whose grace period after a roll has ended.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  verify(secret: string): Promise<ApiKey | null>;
  /**
   * One key by id.
   * @throws DossierError `ERR_KEY_NOT_FOUND` for an unknown id; `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  get(id: string): Promise<ApiKey>;
  /**
   * Every key, oldest first, revoked and expired ones included: for an embedding app that wants them
   * all; the admin API, the panel and the CLI read {@link page} instead.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  list(): Promise<ApiKey[]>;
  /**
   * One page of the keys, newest first (the latest `createdAt`, then the greater id), filtered as
   * `query` asks, with the exact count of the keys the filters match, read from the store's indexes.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  page(query: KeyPageQuery): Promise<KeyPage>;
  /**
   * Changes a key's name, scopes, daily limit or expiry, at once for every process sharing the store.
   * @throws DossierValidationError for a bad value; DossierError `ERR_KEY_NOT_FOUND` for an unknown id,
   *   `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  update(id: string, changes: KeyChanges): Promise<ApiKey>;
  /**
   * Revokes a key at once, every secret of it included; revoking twice is harmless.
   * @throws DossierError `ERR_KEY_NOT_FOUND` for an unknown id; `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  revoke(id: string): Promise<ApiKey>;
  /**
   * Gives a key a new secret, returned this once. The old secret keeps working for `graceSeconds`
   * (0: it stops at once), then only the new one does.
   * @throws DossierValidationError for a bad grace period; DossierError `ERR_KEY_NOT_FOUND` for an
   *   unknown id, `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  roll(id: string, graceSeconds?: number): Promise<{ key: ApiKey; secret: string }>;
}

/** Where a page of keys starts or ends: the key at its edge, by creation and id. */
export interface KeyMark {
  createdAt: string;
  id: string;
}

/** A page of the key list ({@link KeyStore.page}), its values already checked. */
export interface KeyPageQuery {
  /** 1 to 500. */
  limit: number;
  /** The page of the keys after (older than) this one. */
  after?: KeyMark;
  /** The page of the keys before (newer than) this one; the first page when fewer than `limit` are. */
  before?: KeyMark;
  /** A lower-cased substring of the name, the owner or the id (compared lower-cased). */
  search?: string;
  /** The status at `now`. */
  status?: KeyStatus;
  scope?: Scope;
  owner?: string;
  /** ms since the epoch: what `expired` means. */
  now: number;
}

/** A page of keys, with the exact count of the keys the filters match. */
export interface KeyPage {
  items: ApiKey[];
  total: number;
  /** The mark after the last key, when more follow; else `null`. */
  next: KeyMark | null;
  /** The mark before the first key, when keys come before it; else `null`. */
  previous: KeyMark | null;
}

/** What the store keeps of a secret: the key it opens, and until when (ms since the epoch) an old one works after a roll. */
export interface SecretRecord {
  key: ApiKey;
  /** Absent for the key's current secret. */
  graceUntil?: number;
}

/** A key with the digests of its secrets, an old one with until when it works (ms since the epoch). */
export interface KeyEntry {
  key: ApiKey;
  secrets: { digest: string; graceUntil?: number }[];
}

/**
 * Keys as records of a backend's own tables or structures (the SQL backends and Redis): each key with its
 * secrets' digests, each change of a key and of what lists or counts it one atomic step of the store,
 * the list read from indexes. The key store of such a backend checks what it is given and makes the
 * secrets and ids; this keeps them.
 */
export interface KeyRecords {
  /** Makes the tables or structures and moves what older releases kept, once; the other calls do it first. */
  ready(): Promise<void>;
  /** Stores a new key whose current secret has `digest`. */
  insert(key: ApiKey, digest: string): Promise<void>;
  /**
   * Stores many keys at once, each with its secrets, skipping a key whose id is stored already: a bulk
   * load (what the move of older releases' keys does, a benchmark's thousands of keys).
   */
  insertMany(entries: KeyEntry[]): Promise<void>;
  /** The record of the secret whose SHA-256 digest (hex) is `digest`: one indexed read. */
  bySecret(digest: string): Promise<SecretRecord | undefined>;
  get(id: string): Promise<ApiKey | undefined>;
  /**
   * Replaces the key `id` by what `apply` makes of it (nothing written when it returns the key it was
   * given), one change at a time per key across every process; `undefined` for an unknown id.
   */
  change(id: string, apply: (key: ApiKey) => ApiKey): Promise<ApiKey | undefined>;
  /**
   * Gives the key `id` the current secret `digest`, once `check` (which throws to refuse) has seen the key
   * as it stands: its current secret then works until `graceUntil` (`null`: not at all), and the old
   * secrets past their grace at `now` are forgotten. `undefined` for an unknown id.
   */
  roll(
    id: string,
    check: (key: ApiKey) => void,
    digest: string,
    graceUntil: number | null,
    now: number,
  ): Promise<ApiKey | undefined>;
  /** Every key, oldest first. */
  all(): Promise<ApiKey[]>;
  page(query: KeyPageQuery): Promise<KeyPage>;
}
