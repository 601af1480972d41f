import type { Clock } from '../../ports/clock.js';
import type { CounterStore, IncrementOptions } from '../../ports/counter-store.js';
import { StoreGuard } from '../shared/guard.js';

/** The part of a node-redis client the counters and the admission use. */
export interface RedisEvalClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  mGet(keys: string[]): Promise<(string | null)[]>;
}

// One script per change, so the read, the check against the ceiling and the write are one atomic step.
// ARGV[2] is the counter's time to live in ms: an expiry is an instant of the Clock port, which Redis's
// own clock need not agree with (a test's clock, a skewed host), so Redis is told how long, not until when.
const INCREMENT = `
local value = tonumber(redis.call('GET', KEYS[1]) or '0')
if value >= tonumber(ARGV[1]) then return -1 end
value = redis.call('INCR', KEYS[1])
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) else redis.call('PERSIST', KEYS[1]) end
return value`;
const DECREMENT = `
local value = tonumber(redis.call('GET', KEYS[1]) or '0')
if value > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

// A lease is a key holding its owner, set only when absent and expiring by itself; only its owner deletes it.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/** Counters as Redis strings, changed by Lua scripts that Redis runs atomically. */
export class RedisCounterStore implements CounterStore {
  /**
   * @param client a connected client; @param prefix namespaces the counter names; @param clock says
   * how long a counter has left before its expiry; @param guard holds every command to the backend's deadline.
   */
  constructor(
    private readonly client: () => Promise<RedisEvalClient>,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly guard: StoreGuard = new StoreGuard(),
  ) {}

  async increment(name: string, options: IncrementOptions = {}): Promise<number | null> {
    const ceiling = options.ceiling ?? Number.MAX_SAFE_INTEGER;
    const result = await this.guard.run(async () =>
      (await this.client()).eval(INCREMENT, {
        keys: [this.prefix + name],
        arguments: [
          String(ceiling),
          options.expiresAt === undefined ? '' : String(timeToLive(options.expiresAt, this.clock.now())),
        ],
      }),
    );
    const value = Number(result);
    return value < 0 ? null : value;
  }

  async decrement(name: string): Promise<void> {
    await this.guard.run(async () => (await this.client()).eval(DECREMENT, { keys: [this.prefix + name], arguments: [] }));
  }

  async get(name: string): Promise<number> {
    const value = await this.guard.run(async () => (await this.client()).get(this.prefix + name));
    return value === null ? 0 : Number(value);
  }

  async getMany(names: string[]): Promise<number[]> {
    if (names.length === 0) return [];
    const values = await this.guard.run(async () => (await this.client()).mGet(names.map((name) => this.prefix + name)));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const options = { keys: this.leaseKeys(name), arguments: [owner, String(Math.max(1, Math.ceil(ttlMs)))] };
    return Number(await this.guard.run(async () => (await this.client()).eval(ACQUIRE, options))) === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.guard.run(async () => (await this.client()).eval(RELEASE, { keys: this.leaseKeys(name), arguments: [owner] }));
  }

  private leaseKeys(name: string): string[] {
    return [`${this.prefix}lease:${name}`];
  }

  /** The connection belongs to the Keyv store, which closes it. */
  async close(): Promise<void> {}
}

/** Milliseconds from `now` to `expiresAt` (both of the Clock port), at least 1: what Redis's PEXPIRE takes. */
export function timeToLive(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
