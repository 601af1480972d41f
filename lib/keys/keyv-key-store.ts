import { hash, randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { DossierError, DossierValidationError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { ApiKey, KeyStore, NewKey, Scope } from '../ports/key-store.js';
import { AppendOnlyIndex } from '../stores/append-only-index.js';
import type { KvStore } from '../stores/kv-store.js';
import { TOKENS } from '../tokens.js';

/** All scopes, in the order they are listed; a new key has all of them unless told otherwise. */
export const SCOPES: readonly Scope[] = ['lookup', 'documents'];

const SECRET_PREFIX = 'dsr_';
/** 32 random bytes: 256 bits, base64url. */
const SECRET_PATTERN = /^dsr_[A-Za-z0-9_-]{43}$/;

/**
 * Keys in a Keyv store. A key's secret is random, shown once, and stored only as its SHA-256 digest,
 * which is also what finds the key: `key:<digest>` holds the record, `key-id:<id>` the digest. Revoking
 * rewrites the record, so every process sharing the store refuses the key at its next request.
 */
@injectable()
export class KeyvKeyStore implements KeyStore {
  private readonly index: AppendOnlyIndex;

  constructor(
    @inject(TOKENS.storeKv) private readonly kv: KvStore,
    @inject(TOKENS.storeCounters) counters: CounterStore,
    @inject(TOKENS.clock) private readonly clock: Clock,
  ) {
    this.index = new AppendOnlyIndex(kv, counters, 'keys');
  }

  async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const key: ApiKey = {
      id: `key_${randomBytes(8).toString('hex')}`,
      name: checkName(input.name),
      owner: input.owner === undefined ? `acct_${randomBytes(8).toString('hex')}` : checkOwner(input.owner),
      scopes: checkScopes(input.scopes ?? [...SCOPES]),
      dailyLimit: checkLimit(input.dailyLimit ?? null),
      createdAt: new Date(this.clock.now()).toISOString(),
      revokedAt: null,
    };
    const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
    const digest = digestOf(secret);
    await this.kv.set(`key:${digest}`, key);
    await this.kv.set(`key-id:${key.id}`, digest);
    await this.index.append(digest);
    return { key, secret };
  }

  async verify(secret: string): Promise<ApiKey | null> {
    if (!SECRET_PATTERN.test(secret)) return null;
    const key = await this.kv.get<ApiKey>(`key:${digestOf(secret)}`);
    return key === undefined || key.revokedAt !== null ? null : key;
  }

  async list(): Promise<ApiKey[]> {
    const digests = await this.index.values();
    const keys = await this.kv.getMany<ApiKey>(digests.map((digest) => `key:${digest}`));
    return keys.filter((key): key is ApiKey => key !== undefined);
  }

  async revoke(id: string): Promise<ApiKey> {
    const digest = await this.kv.get<string>(`key-id:${id}`);
    const key = digest === undefined ? undefined : await this.kv.get<ApiKey>(`key:${digest}`);
    if (digest === undefined || key === undefined)
      throw new DossierError('ERR_KEY_NOT_FOUND', `There is no key with id "${id}".`);
    if (key.revokedAt !== null) return key;
    const revoked = { ...key, revokedAt: new Date(this.clock.now()).toISOString() };
    await this.kv.set(`key:${digest}`, revoked);
    return revoked;
  }
}

function digestOf(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 128 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new DossierValidationError({ name: ['The name must be 1 to 128 printable characters.'] });
  }
  return name;
}

function checkOwner(owner: unknown): string {
  if (typeof owner !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(owner)) {
    throw new DossierValidationError({ owner: ['The owner must be 1 to 128 letters, digits or . _ @ -.'] });
  }
  return owner;
}

function checkScopes(scopes: unknown): Scope[] {
  const valid = Array.isArray(scopes) && scopes.length > 0 && scopes.every((scope) => SCOPES.includes(scope as Scope));
  if (!valid) throw new DossierValidationError({ scopes: [`The scopes must be one or more of ${SCOPES.join(', ')}.`] });
  return [...new Set(scopes as Scope[])];
}

function checkLimit(limit: unknown): number | null {
  if (limit === null) return null;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1_000_000_000) {
    throw new DossierValidationError({ daily_limit: ['The daily limit must be a whole number from 1 to 1000000000.'] });
  }
  return limit;
}
