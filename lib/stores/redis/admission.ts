import { createHash } from 'node:crypto';
import { digestOfRecord, type StoredKey } from '../../records/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { StoreGuard } from '../shared/guard.js';
import { timeToLive, type RedisEvalClient } from './counters.js';
import type { RedisKeyRecords } from './keys.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import { admissionOf, scriptedSteps, type AdmissionPlan } from '../shared/admission-plan.js';

/**
 * Admissions as one Lua script, which Redis runs atomically: for each secret in KEYS (the string of its
 * digest, lib/stores/redis/keys.ts: the key's id, and until when an old secret works), read its key's
 * record and judge it by `workingKey`'s rule (lib/records/stored-key.ts) written in Lua, then raise the day's quota
 * counter under the key's ceiling and the usage counter of the kind, as `RedisCounterStore` keeps them.
 * A key asked for several times in one batch is read and judged once, and its counters are written
 * once at the end, with the batch's totals (nothing else runs in between: the script is atomic).
 * ARGV: now (ISO 8601), now (ms), UTC day, the quota and usage counters' times to live (ms, as
 * `RedisCounterStore` sets them), counter prefix, then the default
 * limit and the kind of each record, then the prefix of the keys' structures. Answers one `{state, record, used}` per record: 0 invalid,
 * 1 no scope, 2 exceeded, 3 counted.
 */
const ADMIT_LUA = `
local answers, seen, used, touched, quotas, usage, usages = {}, {}, {}, {}, {}, {}, {}
for i, record in ipairs(KEYS) do
  local key = seen[record]
  if key == nil then
    key = false
    local ref = redis.call('GET', record)
    local raw, grace = false, nil
    if ref then
      local bar = string.find(ref, '|', 1, true)
      local id = ref
      if bar then id, grace = string.sub(ref, 1, bar - 1), tonumber(string.sub(ref, bar + 1)) end
      raw = redis.call('HGET', ARGV[6 + 2 * #KEYS + 1] .. 'key:' .. id, 'record')
    end
    local decoded, value = false, nil
    if raw then decoded, value = pcall(cjson.decode, raw) end
    if not (decoded and type(value) == 'table') then value = nil end
    if value and type(value.id) == 'string'
      and (value.revokedAt == nil or value.revokedAt == cjson.null)
      and not (type(value.expiresAt) == 'string' and value.expiresAt <= ARGV[1])
      and not (grace and grace <= tonumber(ARGV[2])) then
      local scoped = false
      if type(value.scopes) == 'table' then
        for _, scope in ipairs(value.scopes) do if scope == 'lookup' then scoped = true end end
      end
      key = { raw = raw, id = value.id, scoped = scoped, quota = ARGV[6] .. 'quota:' .. value.id .. ':' .. ARGV[3] }
      if type(value.dailyLimit) == 'number' then key.limit = value.dailyLimit end
      if used[key.quota] == nil then
        used[key.quota] = tonumber(redis.call('GET', key.quota) or '0')
        table.insert(quotas, key.quota)
      end
    end
    seen[record] = key
  end
  if not key then
    answers[i] = {0}
  else
    local limit = key.limit or tonumber(ARGV[5 + 2 * i])
    local count = used[key.quota]
    if not key.scoped then
      answers[i] = {1, key.raw, count}
    elseif count >= limit then
      answers[i] = {2, key.raw, count}
    else
      count = count + 1
      used[key.quota] = count
      touched[key.quota] = true
      local name = ARGV[6] .. 'usage:' .. key.id .. ':' .. ARGV[3] .. ':' .. ARGV[6 + 2 * i]
      if usage[name] == nil then
        usage[name] = 0
        table.insert(usages, name)
      end
      usage[name] = usage[name] + 1
      answers[i] = {3, key.raw, count}
    end
  end
end
for _, quota in ipairs(quotas) do
  if touched[quota] then
    redis.call('SET', quota, used[quota])
    redis.call('PEXPIRE', quota, ARGV[4])
  end
end
for _, name in ipairs(usages) do
  redis.call('INCRBY', name, usage[name])
  redis.call('PEXPIRE', name, ARGV[5])
end
return answers`;
const ADMIT_SHA = createHash('sha1').update(ADMIT_LUA).digest('hex');

/**
 * Admission on Redis in one script call (by its SHA once Redis knows it): one round trip per lookup.
 * Admissions asked during one turn of the event loop share one call, which Redis runs as one atomic
 * step, in order: under load, the server runs one script for many requests instead of one each.
 */
export class RedisAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];

  /**
   * @param recordPrefix what the key records put before their structures' names (`dossier:kr:`);
   * @param counterPrefix what `RedisCounterStore` puts before a counter's name; @param keys whose
   * structures it reads, those of each admission's secret moved from older releases before it.
   */
  constructor(
    private readonly client: () => Promise<RedisEvalClient>,
    private readonly guard: StoreGuard,
    private readonly recordPrefix: string,
    private readonly counterPrefix: string,
    private readonly keys: Pick<RedisKeyRecords, 'readyFor'>,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans) => this.send(plans));
  }

  /** Sends the admissions of one turn in one script call. */
  private async send(batch: AdmissionPlan[]): Promise<Admission[]> {
    // One day and one time for the batch: it runs as one step (the first plan's, a few µs apart).
    const first = batch[0]!;
    const digests = batch.map((plan) => digestOfRecord(plan.record));
    await this.keys.readyFor(digests);
    const call = {
      keys: digests.map((digest) => `${this.recordPrefix}secret:${digest}`),
      arguments: [
        first.nowIso,
        String(Math.floor(first.now)),
        String(first.day),
        String(timeToLive(first.quotaExpiresAt, first.now)),
        String(timeToLive(first.usageExpiresAt, first.now)),
        this.counterPrefix,
        ...batch.flatMap((plan) => [String(plan.defaultLimit), plan.kind]),
        this.recordPrefix,
      ],
    };
    const answers = (await this.guard.run(async () => {
      const client = await this.client();
      try {
        return await client.evalSha(ADMIT_SHA, call);
      } catch (error) {
        // The first call on a server (or after its restart) sends the script itself, which Redis keeps.
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        return client.eval(ADMIT_LUA, call);
      }
    })) as [number, string?, number?][];
    const step = scriptedSteps((raw) => JSON.parse(raw) as StoredKey);
    return batch.map((plan, index): Admission => {
      const [state = 0, raw, used = 0] = answers[index] ?? [];
      return admissionOf({ ...plan, day: first.day }, step(state, raw, Number(used)));
    });
  }
}
