import type { KeyEntry } from '../ports/key-store.js';
import { publicKey, type StoredKey } from './stored-key.js';

// The keys of releases before keys were records (docs/storage.md, "Keys and sessions as records"), as the
// stores that move them read them: `key:<digest>` held a key's record under the digest of each of its
// secrets (an old one with `graceUntil`), `key-id:<id>` the digest of its current secret, and an
// append-only list the digests in order of creation, which nothing needs to move them.

/** A key-value record of an older release: its name (without the namespace) and its value (`undefined`: unreadable). */
export interface OldKeyRecord {
  name: string;
  value: unknown;
}

/** A key to move: its record, the digests of its secrets (an old one with until when it works), the names of its records. */
export interface MovableKey extends KeyEntry {
  names: string[];
}

/**
 * The keys the records of an older release hold, in order of creation, as a kill at any moment may have
 * left them. A key's current secret is the one `key-id:<id>` names when its record exists, else a record
 * of the key with no grace (a creation cut before it wrote `key-id`); when two such records claim the key (a
 * roll cut in the middle), the one `key-id` names wins, or failing it the one whose `previous` names the
 * other: the secret of a roll that did not finish was never shown to anyone. An old secret keeps its grace
 * when it has not ended at `now`. `unreadable` counts the records that are no key.
 */
export function movableKeys(records: OldKeyRecord[], now: number): { keys: MovableKey[]; unreadable: number } {
  const named = new Map<string, string>();
  const byId = new Map<string, { digest: string; stored: StoredKey }[]>();
  let unreadable = 0;
  for (const { name, value } of records) {
    if (name.startsWith('key-id:')) {
      if (typeof value === 'string') named.set(name.slice('key-id:'.length), value);
      continue;
    }
    if (!isStoredKey(value)) {
      unreadable += 1;
      continue;
    }
    const digest = name.slice('key:'.length);
    const secrets = byId.get(value.id) ?? [];
    secrets.push({ digest, stored: value });
    byId.set(value.id, secrets);
  }
  const keys: MovableKey[] = [];
  for (const [id, secrets] of byId) {
    const current = secrets.filter(({ stored }) => stored.graceUntil === undefined);
    const chosen =
      current.find(({ digest }) => digest === named.get(id)) ??
      current.find(({ stored }) => current.some(({ digest }) => stored.previous?.some((old) => old.digest === digest))) ??
      current[0];
    if (chosen === undefined) continue; // old secrets alone: their key's record is gone
    // An old secret in its grace: marked so, or named by the current record (a roll cut before it marked it).
    const until = (digest: string, stored: StoredKey): number | undefined =>
      stored.graceUntil ?? chosen.stored.previous?.find((old) => old.digest === digest)?.until;
    const grace = secrets
      .filter(({ digest }) => digest !== chosen.digest)
      .map(({ digest, stored }) => ({ digest, graceUntil: until(digest, stored) }))
      .filter(
        (secret): secret is { digest: string; graceUntil: number } => secret.graceUntil !== undefined && secret.graceUntil > now,
      );
    keys.push({
      key: publicKey(chosen.stored),
      secrets: [{ digest: chosen.digest }, ...grace],
      names: [...secrets.map(({ digest }) => `key:${digest}`), `key-id:${id}`],
    });
  }
  keys.sort((a, b) => (a.key.createdAt < b.key.createdAt ? -1 : a.key.createdAt > b.key.createdAt ? 1 : 0));
  return { keys, unreadable };
}

function isStoredKey(value: unknown): value is StoredKey {
  if (typeof value !== 'object' || value === null) return false;
  const key = value as Record<string, unknown>;
  return (
    typeof key.id === 'string' &&
    typeof key.name === 'string' &&
    typeof key.owner === 'string' &&
    typeof key.createdAt === 'string' &&
    Array.isArray(key.scopes)
  );
}
