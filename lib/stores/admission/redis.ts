import { createHash } from 'node:crypto';
import type { StoredKey } from '../../keys/keyv-key-store.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import type { StoreGuard } from '../guard.js';
import { admissionOf, planAdmission } from './plan.js';

/**
 * The whole admission as one Lua script, which Redis runs atomically: read the key's record (as Keyv
 * wrote it), judge it by `workingKey`'s rule (lib/keys/keyv-key-store.ts) written in Lua, then raise the
 * day's quota counter under the key's ceiling and the usage counter of the kind, as `RedisCounterStore`
 * keeps them. Answers `{state, record, used}`: 0 invalid, 1 no scope, 2 exceeded, 3 counted.
 */
const ADMIT_LUA = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {0} end
local decoded, entry = pcall(cjson.decode, raw)
if not decoded or type(entry) ~= 'table' or type(entry.value) ~= 'table' then return {0} end
local key = entry.value
if key.revokedAt ~= nil and key.revokedAt ~= cjson.null then return {0} end
if type(key.expiresAt) == 'string' and key.expiresAt <= ARGV[1] then return {0} end
if type(key.graceUntil) == 'number' and key.graceUntil <= tonumber(ARGV[2]) then return {0} end
local limit = tonumber(ARGV[3])
if type(key.dailyLimit) == 'number' then limit = key.dailyLimit end
local scoped = false
if type(key.scopes) == 'table' then
  for _, scope in ipairs(key.scopes) do if scope == 'lookup' then scoped = true end end
end
local quota = ARGV[8] .. 'quota:' .. key.id .. ':' .. ARGV[4]
local used = tonumber(redis.call('GET', quota) or '0')
if not scoped then return {1, raw, used} end
if used >= limit then return {2, raw, used} end
used = redis.call('INCR', quota)
redis.call('PEXPIREAT', quota, ARGV[6])
local usage = ARGV[8] .. 'usage:' .. key.id .. ':' .. ARGV[4] .. ':' .. ARGV[5]
redis.call('INCR', usage)
redis.call('PEXPIREAT', usage, ARGV[7])
return {3, raw, used}`;
const ADMIT_SHA = createHash('sha1').update(ADMIT_LUA).digest('hex');

/** The part of a node-redis client the admission uses. */
export interface RedisScriptClient {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Admission on Redis in one script call (by its SHA once Redis knows it): one round trip per lookup. */
export class RedisAdmissionStore implements AdmissionStore {
  /**
   * @param recordPrefix what Keyv puts before a record's name (`dossier::`); @param counterPrefix what
   * `RedisCounterStore` puts before a counter's name.
   */
  constructor(
    private readonly client: () => Promise<RedisScriptClient>,
    private readonly guard: StoreGuard,
    private readonly recordPrefix: string,
    private readonly counterPrefix: string,
    private readonly clock: Clock,
  ) {}

  async admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission> {
    const plan = planAdmission(secret, kind, defaultLimit, this.clock.now());
    if (plan === null) return { status: 'invalid' };
    const call = {
      keys: [this.recordPrefix + plan.record],
      arguments: [
        plan.nowIso,
        String(Math.floor(plan.now)),
        String(defaultLimit),
        String(plan.day),
        kind,
        String(plan.quotaExpiresAt),
        String(plan.usageExpiresAt),
        this.counterPrefix,
      ],
    };
    const answer = (await this.guard.run(async () => {
      const client = await this.client();
      try {
        return await client.evalSha(ADMIT_SHA, call);
      } catch (error) {
        // The first call on a server (or after its restart) sends the script itself, which Redis keeps.
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        return client.eval(ADMIT_LUA, call);
      }
    })) as [number, string?, number?];
    const [state, raw, used = 0] = answer;
    if (state === 0 || raw === undefined) return { status: 'invalid' };
    const record = (JSON.parse(raw) as { value: StoredKey }).value;
    return admissionOf(plan, {
      state: state === 1 ? 'no-scope' : state === 2 ? 'exceeded' : 'counted',
      record,
      used: Number(used),
    });
  }
}
