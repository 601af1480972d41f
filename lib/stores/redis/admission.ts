import { createHash } from 'node:crypto';
import type { StoredKey } from '../../records/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { StoreGuard } from '../shared/guard.js';
import { timeToLive, type RedisEvalClient } from './counters.js';
import { deserialize } from '../shared/serialize.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import { admissionOf, scriptedSteps, type AdmissionPlan } from '../shared/admission-plan.js';

/**
 * Admissions as one Lua script, which Redis runs atomically: for each record in KEYS (as Keyv wrote it),
 * judge it by `workingKey`'s rule (lib/records/stored-key.ts) written in Lua, then raise the day's quota
 * counter under the key's ceiling and the usage counter of the kind, as `RedisCounterStore` keeps them.
 * A key asked for several times in one batch is read and judged once, and its counters are written
 * once at the end, with the batch's totals (nothing else runs in between: the script is atomic).
 * ARGV: now (ISO 8601), now (ms), UTC day, the quota and usage counters' times to live (ms, as
 * `RedisCounterStore` sets them), counter prefix, then the default
 * limit and the kind of each record. Answers one `{state, record, used}` per record: 0 invalid,
 * 1 no scope, 2 exceeded, 3 counted.
 */
const ADMIT_LUA = `
local answers, seen, used, touched, quotas, usage, usages = {}, {}, {}, {}, {}, {}, {}
for i, record in ipairs(KEYS) do
  local key = seen[record]
  if key == nil then
    key = false
    local raw = redis.call('GET', record)
    local decoded, entry = false, nil
    if raw then decoded, entry = pcall(cjson.decode, raw) end
    local value = decoded and type(entry) == 'table' and type(entry.value) == 'table' and entry.value or nil
    if value and type(value.id) == 'string'
      and (value.revokedAt == nil or value.revokedAt == cjson.null)
      and not (type(value.expiresAt) == 'string' and value.expiresAt <= ARGV[1])
      and not (type(value.graceUntil) == 'number' and value.graceUntil <= tonumber(ARGV[2])) then
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
   * @param recordPrefix what Keyv puts before a record's name (`dossier::`); @param counterPrefix what
   * `RedisCounterStore` puts before a counter's name.
   */
  constructor(
    private readonly client: () => Promise<RedisEvalClient>,
    private readonly guard: StoreGuard,
    private readonly recordPrefix: string,
    private readonly counterPrefix: string,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans) => this.send(plans));
  }

  /** Sends the admissions of one turn in one script call. */
  private async send(batch: AdmissionPlan[]): Promise<Admission[]> {
    // One day and one time for the batch: it runs as one step (the first plan's, a few µs apart).
    const first = batch[0]!;
    const call = {
      keys: batch.map((plan) => this.recordPrefix + plan.record),
      arguments: [
        first.nowIso,
        String(Math.floor(first.now)),
        String(first.day),
        String(timeToLive(first.quotaExpiresAt, first.now)),
        String(timeToLive(first.usageExpiresAt, first.now)),
        this.counterPrefix,
        ...batch.flatMap((plan) => [String(plan.defaultLimit), plan.kind]),
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
    const step = scriptedSteps((raw) => deserialize<{ value: StoredKey }>(raw).value);
    return batch.map((plan, index): Admission => {
      const [state = 0, raw, used = 0] = answers[index] ?? [];
      return admissionOf({ ...plan, day: first.day }, step(state, raw, Number(used)));
    });
  }
}
