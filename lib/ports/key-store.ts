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
   * Every key, oldest first, revoked and expired ones included.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  list(): Promise<ApiKey[]>;
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
