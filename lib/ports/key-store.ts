/** What a key may do: `lookup` for interface A, `documents` for interface B. */
export type Scope = 'lookup' | 'documents';

/** A key as stored: everything but the secret, which is kept only as its SHA-256 digest. */
export interface ApiKey {
  /** Public identifier, used to list and revoke. */
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
}

/** Creates, finds and revokes bearer keys. */
export interface KeyStore {
  /**
   * Makes a key. The plaintext `secret` is returned this once and never stored.
   * @throws DossierError `ERR_DOCUMENT_INVALID` (as a validation error) for a bad name, owner, scope or limit;
   *   `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  create(input: NewKey): Promise<{ key: ApiKey; secret: string }>;
  /**
   * Finds the live key behind a plaintext secret; `null` when unknown or revoked.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  verify(secret: string): Promise<ApiKey | null>;
  /**
   * Every key, oldest first, revoked ones included.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  list(): Promise<ApiKey[]>;
  /**
   * Revokes a key at once; revoking twice is harmless.
   * @throws DossierError `ERR_KEY_NOT_FOUND` for an unknown id; `ERR_STORE_UNAVAILABLE` when the store is down.
   */
  revoke(id: string): Promise<ApiKey>;
}
