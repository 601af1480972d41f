import { hash } from 'node:crypto';
import type { ApiKey, KeyStatus } from '../ports/key-store.js';

// How a key is kept at rest, shared by the key stores (lib/keys) and the stores' one-step admissions
// (lib/stores), which read the same records.

/** What every secret starts with. */
export const SECRET_PREFIX = 'dsr_';
/** 32 random bytes: 256 bits, base64url. */
export const SECRET_PATTERN = /^dsr_[A-Za-z0-9_-]{43}$/;

/**
 * A key as kept under `key:<digest>`. The record of the current secret lists the secrets it replaced that
 * are still in their grace period; the record of such an old secret carries `graceUntil` (ms since the
 * epoch) and expires with it.
 */
export interface StoredKey extends ApiKey {
  graceUntil?: number;
  previous?: { digest: string; until: number }[];
}

/**
 * The key of a stored record if it works at `now`: not revoked, not expired, and not an old secret past
 * its grace period; else `null`. The store's fast paths (each backend's admission.ts in lib/stores) apply the same rule.
 */
export function workingKey(stored: StoredKey, now: number): ApiKey | null {
  if (stored.graceUntil !== undefined && stored.graceUntil <= now) return null;
  const key = publicKey(stored);
  return keyStatusAt(key, now) === 'active' ? key : null;
}

/** The name of the record of a secret's digest, in the store's values. */
export function keyRecord(digest: string): string {
  return `key:${digest}`;
}

/** The digest a record name of {@link keyRecord} stands for: the stores that keep keys as records find them by it. */
export function digestOfRecord(record: string): string {
  return record.slice('key:'.length);
}

/** The key of a stored record, without what only the store needs. */
export function publicKey(stored: StoredKey): ApiKey {
  return {
    id: stored.id,
    name: stored.name,
    owner: stored.owner,
    scopes: stored.scopes,
    dailyLimit: stored.dailyLimit,
    createdAt: stored.createdAt,
    revokedAt: stored.revokedAt,
    // Keys made before expiry existed have no field.
    expiresAt: stored.expiresAt ?? null,
  };
}

/** The SHA-256 digest (hex) that stands for a secret at rest. */
export function digestOf(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * Where a key stands at `now` (ms since the epoch): `revoked` once revoked, else `expired` from its
 * `expiresAt` on, else `active`.
 */
export function keyStatusAt(key: ApiKey, now: number): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

/** What a search of the key list looks in: the name, the owner and the id, lower-cased, apart (a search never spans two). */
export function searchedText(key: ApiKey): string {
  return [key.name, key.owner, key.id].map((text) => text.toLowerCase()).join('\n');
}
