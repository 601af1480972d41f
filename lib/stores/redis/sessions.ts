import type { Clock } from '../../ports/clock.js';
import type { SessionRecord, SessionStore, SignInVerdict } from '../../ports/session-store.js';
import { countTry, lockedAt, type TriesRecord } from '../../records/sign-in-tries.js';
import type { StoreGuard } from '../shared/guard.js';
import { deserialize } from '../shared/serialize.js';
import type { RedisKeyClient } from './keys.js';
import { SetUpOnce } from '../shared/set-up-once.js';

/** The client the sessions need: the keys', with SET's options and PTTL. */
export type RedisSessionClient = RedisKeyClient & {
  set(key: string, value: string, options?: { PX?: number; NX?: boolean }): Promise<string | null>;
  pTTL(key: string): Promise<number>;
};

// Sessions and wrong tries as Redis strings, under `<namespace>:ss:` (docs/storage.md, "Keys and sessions as
// records"): `s:<name>` a workspace session or a signed-out mark of the panel, `t:<name>` the wrong tries
// of an address, each as JSON, each expiring with what it holds. A try is read, counted here and written
// by one script only if no other try wrote in between (else read again): no lock to outlive a process.

/** ARGV: name, the value read ('' for none), the value to write, its time to live (ms). 1 when written. */
const SWAP = `
local now = redis.call('GET', KEYS[1])
if (now or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** What older releases kept of sessions and tries under `<namespace>::`, and where each goes now. */
const OLD_PATTERNS: [pattern: string, kind: 's' | 't'][] = [
  ['admin:signed-out:', 's'],
  ['workspace:session:', 's'],
  ['admin:sign-in:', 't'],
  ['workspace:sign-in:', 't'],
];

/** How a {@link RedisSessionStore} reaches Redis. */
export interface RedisSessionOptions {
  client: () => Promise<RedisSessionClient>;
  guard: StoreGuard;
  namespace: string;
  clock: Clock;
}

/** Sessions and tries as Redis strings ({@link SessionStore}); those of older releases moved in at the first call. */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;
  /** The sessions and tries of older releases moved ({@link moveKeyvRecords}). */
  private readonly once = new SetUpOnce(() => this.moveKeyvRecords());

  constructor(private readonly options: RedisSessionOptions) {
    this.prefix = `${options.namespace}:ss:`;
  }

  async put(name: string, record: SessionRecord): Promise<void> {
    const ttl = Math.ceil(record.expiresAt - this.options.clock.now());
    if (ttl <= 0) return;
    await this.call((client) => client.set(`${this.prefix}s:${name}`, JSON.stringify(record), { PX: ttl }));
  }

  async get(name: string, now: number): Promise<SessionRecord | undefined> {
    const text = await this.call((client) => client.get(`${this.prefix}s:${name}`));
    const record = text === null ? undefined : (JSON.parse(text) as SessionRecord);
    return record !== undefined && record.expiresAt > now ? record : undefined;
  }

  async remove(name: string): Promise<void> {
    await this.call((client) => client.del([`${this.prefix}s:${name}`]));
  }

  async lockedUntil(name: string, now: number): Promise<number | null> {
    return lockedAt((await this.tries(name)).record, now);
  }

  async attempt(name: string, now: number, isRight: () => boolean): Promise<SignInVerdict> {
    const key = `${this.prefix}t:${name}`;
    for (;;) {
      const { text, record } = await this.tries(name);
      const tried = countTry(record, now);
      if ('locked' in tried) return tried.locked;
      const ttl = String(Math.max(1, tried.expiresAt - this.options.clock.now()));
      const swapped = await this.call((client) =>
        client.eval(SWAP, { keys: [key], arguments: [text, JSON.stringify(tried.counted), ttl] }),
      );
      if (swapped !== 1) continue; // another try wrote in between: this one is counted after it
      if (!isRight()) return { outcome: 'wrong', nowLocked: tried.nowLocked };
      await this.call((client) => client.del([key]));
      return { outcome: 'right' };
    }
  }

  /** An address's tries, and their text as stored ('' for none: what a swap compares). */
  private async tries(name: string): Promise<{ text: string; record: TriesRecord | undefined }> {
    const text = await this.call((client) => client.get(`${this.prefix}t:${name}`));
    return text === null ? { text: '', record: undefined } : { text, record: JSON.parse(text) as TriesRecord };
  }

  private async call<T>(use: (client: RedisSessionClient) => Promise<T>): Promise<T> {
    if (!this.once.done) await this.once.run();
    return this.direct(use);
  }

  private direct<T>(use: (client: RedisSessionClient) => Promise<T>): Promise<T> {
    return this.options.guard.run(async () => use(await this.options.client()));
  }

  /**
   * Moves the sessions and tries that releases before these strings kept as Keyv values into them, with
   * the time each had left, then notes it done (`<namespace>:ss:moved`), so that a later start scans
   * nothing: a signed-out session stays signed out, a workspace session open, a locked address locked.
   */
  private async moveKeyvRecords(): Promise<void> {
    const moved = `${this.prefix}moved`;
    if ((await this.direct((client) => client.get(moved))) !== null) return;
    const keyv = `${this.options.namespace}::`;
    for (const [pattern, kind] of OLD_PATTERNS) {
      let cursor = '0';
      do {
        const page = await this.direct((client) => client.scan(cursor, { MATCH: `${keyv}${pattern}*`, COUNT: 1000 }));
        cursor = String(page.cursor);
        for (const name of page.keys) {
          const [text, left] = await this.direct((client) => Promise.all([client.get(name), client.pTTL(name)]));
          const value = text === null ? undefined : keyvValue(text);
          if (value !== undefined && left > 0) {
            const record = kind === 's' ? sessionOf(value, this.options.clock.now() + left) : value;
            await this.direct((client) =>
              client.set(`${this.prefix}${kind}:${name.slice(keyv.length)}`, JSON.stringify(record), { PX: left, NX: true }),
            );
          }
          await this.direct((client) => client.del([name]));
        }
      } while (cursor !== '0');
    }
    await this.direct((client) => client.set(moved, '1'));
  }
}

/** A session of an older release: a workspace session kept its key and expiry; a signed-out mark was `true`. */
function sessionOf(value: unknown, expiresAt: number): SessionRecord {
  const keyId = typeof value === 'object' && value !== null ? (value as { keyId?: unknown }).keyId : undefined;
  return { keyId: typeof keyId === 'string' ? keyId : null, expiresAt };
}

/** The value of a record as Keyv wrote it (`{"value":…,"expires":…}`), or `undefined`. */
function keyvValue(text: string): unknown {
  try {
    return deserialize<{ value?: unknown }>(text).value;
  } catch {
    return undefined;
  }
}
