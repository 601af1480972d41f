import type { RenewableLeases } from '../shared/living-lease.js';

/** Takes a lease unless another holds it. KEYS: the lease. ARGV: 1 owner, 2 ms to live. */
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
/** Extends the owner's lease. KEYS: the lease. ARGV: 1 owner, 2 ms to live from now. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;
/** Frees the owner's lease. KEYS: the lease. ARGV: 1 owner. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/** Runs a Lua script on Redis under the backend's deadline. */
export type RedisScriptCall = (script: string, keys: string[], args: string[]) => Promise<unknown>;

/**
 * Leases as Redis keys (`<prefix><name>`, holding the owner, with Redis's own expiry), which their holder
 * renews: what `withLivingLease` takes on Redis.
 */
export function redisLeases(call: RedisScriptCall, prefix: string): RenewableLeases {
  const ms = (ttlMs: number) => String(Math.max(1, Math.ceil(ttlMs)));
  return {
    acquire: async (name, owner, ttlMs) => Number(await call(ACQUIRE, [prefix + name], [owner, ms(ttlMs)])) === 1,
    renew: async (name, owner, ttlMs) => Number(await call(RENEW, [prefix + name], [owner, ms(ttlMs)])) === 1,
    release: async (name, owner) => {
      await call(RELEASE, [prefix + name], [owner]);
    },
  };
}
