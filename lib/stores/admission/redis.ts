import { createHash } from 'node:crypto';
import type { StoredKey } from '../../keys/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import type { StoreGuard } from '../guard.js';
import { deserialize } from '../keyv/serialize.js';
import { admissionOf, planAdmission, type AdmissionPlan } from './plan.js';

/**
 * Admissions as one Lua script, which Redis runs atomically: for each record in KEYS (as Keyv wrote it),
 * judge it by `workingKey`'s rule (lib/keys/keyv-key-store.ts) written in Lua, then raise the day's quota
 * counter under the key's ceiling and the usage counter of the kind, as `RedisCounterStore` keeps them.
 * ARGV: now (ISO 8601), now (ms), UTC day, quota expiry, usage expiry, counter prefix, then the default
 * limit and the kind of each record. Answers one `{state, record, used}` per record: 0 invalid,
 * 1 no scope, 2 exceeded, 3 counted.
 */
const ADMIT_LUA = `
local answers = {}
for i, record in ipairs(KEYS) do
  local answer = {0}
  local raw = redis.call('GET', record)
  local decoded, entry = false, nil
  if raw then decoded, entry = pcall(cjson.decode, raw) end
  local key = decoded and type(entry) == 'table' and type(entry.value) == 'table' and entry.value or nil
  if key and type(key.id) == 'string'
    and (key.revokedAt == nil or key.revokedAt == cjson.null)
    and not (type(key.expiresAt) == 'string' and key.expiresAt <= ARGV[1])
    and not (type(key.graceUntil) == 'number' and key.graceUntil <= tonumber(ARGV[2])) then
    local limit = tonumber(ARGV[5 + 2 * i])
    if type(key.dailyLimit) == 'number' then limit = key.dailyLimit end
    local scoped = false
    if type(key.scopes) == 'table' then
      for _, scope in ipairs(key.scopes) do if scope == 'lookup' then scoped = true end end
    end
    local quota = ARGV[6] .. 'quota:' .. key.id .. ':' .. ARGV[3]
    local used = tonumber(redis.call('GET', quota) or '0')
    if not scoped then
      answer = {1, raw, used}
    elseif used >= limit then
      answer = {2, raw, used}
    else
      used = redis.call('INCR', quota)
      redis.call('PEXPIREAT', quota, ARGV[4])
      local usage = ARGV[6] .. 'usage:' .. key.id .. ':' .. ARGV[3] .. ':' .. ARGV[6 + 2 * i]
      redis.call('INCR', usage)
      redis.call('PEXPIREAT', usage, ARGV[5])
      answer = {3, raw, used}
    end
  end
  answers[i] = answer
end
return answers`;
const ADMIT_SHA = createHash('sha1').update(ADMIT_LUA).digest('hex');

/** The part of a node-redis client the admission uses. */
export interface RedisScriptClient {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

interface Waiting {
  plan: AdmissionPlan;
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

/**
 * Admission on Redis in one script call (by its SHA once Redis knows it): one round trip per lookup.
 * Admissions asked during one turn of the event loop share one call, which Redis runs as one atomic
 * step, in order: under load, the server runs one script for many requests instead of one each.
 */
export class RedisAdmissionStore implements AdmissionStore {
  private queue: Waiting[] = [];

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

  admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission> {
    const plan = planAdmission(secret, kind, defaultLimit, this.clock.now());
    if (plan === null) return Promise.resolve({ status: 'invalid' });
    return new Promise<Admission>((resolve, reject) => {
      this.queue.push({ plan, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  /** Sends every admission asked since the last flush in one script call. */
  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    // One day and one time for the batch: it runs as one step (the first plan's, a few µs apart).
    const first = batch[0]!.plan;
    const call = {
      keys: batch.map((entry) => this.recordPrefix + entry.plan.record),
      arguments: [
        first.nowIso,
        String(Math.floor(first.now)),
        String(first.day),
        String(first.quotaExpiresAt),
        String(first.usageExpiresAt),
        this.counterPrefix,
        ...batch.flatMap((entry) => [String(entry.plan.defaultLimit), entry.plan.kind]),
      ],
    };
    let answers: [number, string?, number?][];
    try {
      answers = (await this.guard.run(async () => {
        const client = await this.client();
        try {
          return await client.evalSha(ADMIT_SHA, call);
        } catch (error) {
          // The first call on a server (or after its restart) sends the script itself, which Redis keeps.
          if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
          return client.eval(ADMIT_LUA, call);
        }
      })) as [number, string?, number?][];
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const [state = 0, raw, used = 0] = answers[index] ?? [];
      if (state === 0 || raw === undefined) return entry.resolve({ status: 'invalid' });
      const record = deserialize<{ value: StoredKey }>(raw).value;
      const step = state === 1 ? 'no-scope' : state === 2 ? 'exceeded' : 'counted';
      entry.resolve(admissionOf({ ...entry.plan, day: first.day }, { state: step, record, used: Number(used) }));
    });
  }
}
