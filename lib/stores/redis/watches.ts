import {
  DELIVERIES_LISTED,
  type Page,
  type PageQuery,
  type RemovedOfKey,
  type StoredDelivery,
  type WatchRecord,
  type WatchStore,
  type WatchStoreChanges,
} from '../../ports/watch-store.js';
import type { StoreGuard } from '../shared/guard.js';
import {
  byCreation,
  cursorOfSeq,
  OLD_WATCH_LISTS,
  oldRecord,
  seqOfCursor,
  type OldWatchRecord,
} from '../shared/watch-records.js';
import type { RedisEvalClient } from './counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';

/** The client the watches need: scripts, and SCAN for the move from older releases. */
export type RedisWatchClient = RedisEvalClient & {
  scan(cursor: string, options: { MATCH: string; COUNT: number }): Promise<{ cursor: string; keys: string[] }>;
  del(keys: string[]): Promise<number>;
};

// Watches as Redis's own structures, under `<namespace>:wr:` (docs/storage.md): a hash per watch (its
// record, owner, key and `seq`, the order of creation from the `seq` counter), a sorted set of the
// watches of each owner and of each key by `seq` (a key's size is its count against the limit), a set of
// every watch and one of the unscheduled; a string per delivery, a sorted set of the deliveries of each
// watch and a set of the pending ones. Each change is one Lua script, which Redis runs whole: a process
// killed mid-change leaves it done or not done, never half. ARGV[1] is the prefix the scripts build the
// names of the structures they find in a record with.

const INSERT = `
local p = ARGV[1]
local w = p .. 'watch:' .. ARGV[2]
if redis.call('EXISTS', w) == 1 then return 0 end
local byKey = p .. 'key:' .. ARGV[5]
if redis.call('ZCARD', byKey) >= tonumber(ARGV[6]) then return 0 end
local seq = redis.call('INCR', p .. 'seq')
redis.call('HSET', w, 'record', ARGV[3], 'owner', ARGV[4], 'key', ARGV[5], 'seq', seq)
redis.call('ZADD', byKey, seq, ARGV[2])
redis.call('ZADD', p .. 'owner:' .. ARGV[4], seq, ARGV[2])
redis.call('SADD', p .. 'all', ARGV[2])
if ARGV[7] == '1' then redis.call('SADD', p .. 'unscheduled', ARGV[2]) end
redis.call('INCR', KEYS[1])
return 1`;

const SAVE = `
local w = ARGV[1] .. 'watch:' .. ARGV[2]
if redis.call('EXISTS', w) == 1 then redis.call('HSET', w, 'record', ARGV[3]) end
return 0`;

/** Members a command of REMOVE_OF_KEY takes at once (Lua's `unpack` has a limit of a few thousand). */
const BATCH = 500;

/**
 * Drops the deliveries of watch `watch` that are over among the first `count` of its list (0: all of
 * it), and answers the ids of the pending ones, which stay.
 */
const DROP_OVER = `
local function dropOver(p, watch, count)
  local list = p .. 'deliveries:' .. watch
  local pending = {}
  for _, d in ipairs(redis.call('ZRANGE', list, 0, count - 1)) do
    if redis.call('SISMEMBER', p .. 'pending', d) == 1 then
      pending[#pending + 1] = d
    else
      redis.call('DEL', p .. 'delivery:' .. d)
      redis.call('ZREM', list, d)
    end
  end
  return pending
end`;

/** Removes one watch. */
const FORGET_WATCH = `
local function forget(p, id)
  local w = p .. 'watch:' .. id
  local fields = redis.call('HMGET', w, 'record', 'owner', 'key')
  if not fields[1] then return false end
  redis.call('DEL', w)
  redis.call('ZREM', p .. 'owner:' .. fields[2], id)
  redis.call('ZREM', p .. 'key:' .. fields[3], id)
  redis.call('SREM', p .. 'all', id)
  redis.call('SREM', p .. 'unscheduled', id)
  return fields[1]
end`;

const REMOVE = `${FORGET_WATCH}
local record = forget(ARGV[1], ARGV[2])
if record then redis.call('INCR', KEYS[1]) end
return record`;

/**
 * Every watch of a key, with its deliveries that are over; answers the ids removed, then the pending
 * deliveries. The watches go {@link BATCH} to a command (their hashes, their places in the sets and in
 * their owner's list), and the key's list at once: a key of 10,000 watches is some 30 commands of
 * removals, beside a read of each watch's owner and deliveries.
 */
const REMOVE_OF_KEY = `${DROP_OVER}
local p = ARGV[1]
local byKey = p .. 'key:' .. ARGV[2]
local ids = redis.call('ZRANGE', byKey, 0, -1)
local pending = {}
local owners = {}
for first = 1, #ids, ${BATCH} do
  local chunk = {unpack(ids, first, math.min(first + ${BATCH - 1}, #ids))}
  local hashes = {}
  for n, id in ipairs(chunk) do
    hashes[n] = p .. 'watch:' .. id
    local owner = redis.call('HGET', hashes[n], 'owner')
    if owner then
      owners[owner] = owners[owner] or {}
      table.insert(owners[owner], id)
    end
    for _, d in ipairs(dropOver(p, id, 0)) do pending[#pending + 1] = d end
  end
  redis.call('DEL', unpack(hashes))
  redis.call('SREM', p .. 'all', unpack(chunk))
  redis.call('SREM', p .. 'unscheduled', unpack(chunk))
end
for owner, list in pairs(owners) do
  for first = 1, #list, ${BATCH} do
    redis.call('ZREM', p .. 'owner:' .. owner, unpack(list, first, math.min(first + ${BATCH - 1}, #list)))
  end
end
redis.call('DEL', byKey)
if #ids > 0 then redis.call('INCR', KEYS[1]) end
return {ids, pending}`;

/** A page of a sorted set of watches, newest first, below the `seq` ARGV[3] ('' for the first): records, their `seq`, and the total. */
const PAGE = `
local p = ARGV[1]
local list = p .. ARGV[2]
local top = ARGV[3] == '' and '+inf' or ('(' .. ARGV[3])
local ids = redis.call('ZREVRANGEBYSCORE', list, top, '-inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
local out = {redis.call('ZCARD', list)}
for i = 1, #ids, 2 do
  out[#out + 1] = redis.call('HGET', p .. 'watch:' .. ids[i], 'record') or ''
  out[#out + 1] = ids[i + 1]
end
return out`;

/** Drops the deliveries that are over and out of the newest `listed` of a watch's list. */
const TRIM = `${DROP_OVER}
local function trim(p, watch, listed)
  local older = redis.call('ZCARD', p .. 'deliveries:' .. watch) - listed
  if older > 0 then dropOver(p, watch, older) end
end`;

const INSERT_DELIVERY = `${TRIM}
local p = ARGV[1]
local d = p .. 'delivery:' .. ARGV[2]
if redis.call('EXISTS', d) == 1 then return 0 end
local seq = redis.call('INCR', p .. 'seq')
redis.call('SET', d, ARGV[4])
redis.call('ZADD', p .. 'deliveries:' .. ARGV[3], seq, ARGV[2])
if ARGV[5] == '1' then
  redis.call('SADD', p .. 'pending', ARGV[2])
  redis.call('INCR', KEYS[1])
end
trim(p, ARGV[3], tonumber(ARGV[6]))
return 1`;

const SAVE_DELIVERY = `${TRIM}
local p = ARGV[1]
local d = p .. 'delivery:' .. ARGV[2]
if redis.call('EXISTS', d) == 0 then return 0 end
redis.call('SET', d, ARGV[4])
local changed
if ARGV[5] == '1' then changed = redis.call('SADD', p .. 'pending', ARGV[2]) else changed = redis.call('SREM', p .. 'pending', ARGV[2]) end
if changed == 1 then
  redis.call('INCR', KEYS[1])
  trim(p, ARGV[3], tonumber(ARGV[6]))
end
return 1`;

const FORGET_DELIVERY = `
local p = ARGV[1]
redis.call('DEL', p .. 'delivery:' .. ARGV[2])
redis.call('ZREM', p .. 'deliveries:' .. ARGV[3], ARGV[2])
if redis.call('SREM', p .. 'pending', ARGV[2]) == 1 then redis.call('INCR', KEYS[1]) end
return 0`;

const FORGET_OVER = `${DROP_OVER}
return dropOver(ARGV[1], ARGV[2], 0)`;

/** The records of deliveries listed by ids read first: ARGV[2] 'newest' (the last ARGV[3]) or 'pending'. */
const DELIVERY_RECORDS = `
local p = ARGV[1]
local ids
if ARGV[2] == 'pending' then ids = redis.call('SMEMBERS', p .. 'pending')
else ids = redis.call('ZREVRANGE', p .. 'deliveries:' .. ARGV[2], 0, tonumber(ARGV[3]) - 1) end
local out = {}
for _, id in ipairs(ids) do
  local record = redis.call('GET', p .. 'delivery:' .. id)
  if record then out[#out + 1] = record end
end
return out`;

/** Settings of a {@link RedisWatchStore}. */
export interface RedisWatchStoreOptions {
  client: () => Promise<RedisWatchClient>;
  guard: StoreGuard;
  /** The namespace of the backend: the keys of Keyv (`<namespace>::`) and of the counters (`<namespace>:counter:`). */
  namespace: string;
}

/** Records of older releases read, and then moved, at once during the move. */
const MOVE_BATCH = 500;

/** Keys of older releases' records read per SCAN call during the move. */
const SCAN_COUNT = 1000;

/**
 * Watches and deliveries as Redis structures ({@link WatchStore}), each change one script. Before its
 * first call, what older releases kept as Keyv values is moved into them ({@link moveKeyvRecords}).
 */
export class RedisWatchStore<W extends WatchRecord = WatchRecord> implements WatchStore<W> {
  private readonly prefix: string;
  private readonly watchChanges: string;
  private readonly deliveryChanges: string;
  /** The watches of older releases moved ({@link moveKeyvRecords}). */
  private readonly once = new SetUpOnce(() => this.moveKeyvRecords());
  private moved = 0;

  constructor(private readonly options: RedisWatchStoreOptions) {
    this.prefix = `${options.namespace}:wr:`;
    this.watchChanges = `${options.namespace}:counter:watch-list:changes`;
    this.deliveryChanges = `${options.namespace}:counter:delivery-list:changes`;
  }

  async insert(watch: W, limit: number): Promise<boolean> {
    const parameters = [watch.id, JSON.stringify(watch), watch.owner, watch.keyId, String(limit), '0'];
    return Number(await this.script(INSERT, [this.watchChanges], parameters)) === 1;
  }

  async save(watch: W): Promise<void> {
    await this.script(SAVE, [], [watch.id, JSON.stringify(watch)]);
  }

  async get(id: string): Promise<W | undefined> {
    const record = await this.script("return redis.call('HGET', ARGV[1] .. 'watch:' .. ARGV[2], 'record')", [], [id]);
    return typeof record === 'string' ? (JSON.parse(record) as W) : undefined;
  }

  async remove(id: string): Promise<W | undefined> {
    const record = await this.script(REMOVE, [this.watchChanges], [id]);
    return typeof record === 'string' ? (JSON.parse(record) as W) : undefined;
  }

  async removeOfKey(keyId: string): Promise<RemovedOfKey> {
    const [watches, pending] = (await this.script(REMOVE_OF_KEY, [this.watchChanges], [keyId])) as [string[], string[]];
    return { watches, pending };
  }

  ofOwner(owner: string, page: PageQuery): Promise<Page<W>> {
    return this.page(`owner:${owner}`, page);
  }

  ofKey(keyId: string, page: PageQuery): Promise<Page<W>> {
    return this.page(`key:${keyId}`, page);
  }

  private async page(list: string, { limit, cursor }: PageQuery): Promise<Page<W>> {
    const below = cursor === undefined ? '' : String(seqOfCursor(cursor));
    const [total, ...found] = (await this.script(PAGE, [], [list, below, String(limit + 1)])) as [number, ...string[]];
    const rows: { record: string; seq: string }[] = [];
    for (let n = 0; n < found.length; n += 2) rows.push({ record: found[n]!, seq: found[n + 1]! });
    const items = rows.slice(0, limit);
    return {
      items: items.filter(({ record }) => record !== '').map(({ record }) => JSON.parse(record) as W),
      total: Number(total),
      nextCursor: rows.length > limit ? cursorOfSeq(Number(items.at(-1)!.seq)) : null,
    };
  }

  async allIds(): Promise<string[]> {
    return (await this.script("return redis.call('SMEMBERS', ARGV[1] .. 'all')", [], [])) as string[];
  }

  async changes(): Promise<WatchStoreChanges> {
    if (!this.once.done) await this.once.run();
    const [watches, deliveries] = await this.call((client) => client.mGet([this.watchChanges, this.deliveryChanges]));
    return { watches: Number(watches ?? 0), deliveries: Number(deliveries ?? 0) };
  }

  async markUnscheduled(id: string): Promise<void> {
    await this.script("return redis.call('SADD', ARGV[1] .. 'unscheduled', ARGV[2])", [], [id]);
  }

  async markScheduled(id: string): Promise<void> {
    await this.script("return redis.call('SREM', ARGV[1] .. 'unscheduled', ARGV[2])", [], [id]);
  }

  async unscheduled(): Promise<string[]> {
    return (await this.script("return redis.call('SMEMBERS', ARGV[1] .. 'unscheduled')", [], [])) as string[];
  }

  async insertDelivery(delivery: StoredDelivery): Promise<void> {
    await this.script(INSERT_DELIVERY, [this.deliveryChanges], deliveryArguments(delivery));
  }

  async saveDelivery(delivery: StoredDelivery): Promise<void> {
    await this.script(SAVE_DELIVERY, [this.deliveryChanges], deliveryArguments(delivery));
  }

  async forgetDelivery(delivery: { id: string; watchId: string }): Promise<void> {
    await this.script(FORGET_DELIVERY, [this.deliveryChanges], [delivery.id, delivery.watchId]);
  }

  async forgetDeliveriesOver(watchId: string): Promise<string[]> {
    return (await this.script(FORGET_OVER, [], [watchId])) as string[];
  }

  async getDelivery(id: string): Promise<StoredDelivery | undefined> {
    if (!this.once.done) await this.once.run();
    const record = await this.call((client) => client.get(`${this.prefix}delivery:${id}`));
    return record === null ? undefined : (JSON.parse(record) as StoredDelivery);
  }

  async deliveries(watchId: string): Promise<StoredDelivery[]> {
    const records = (await this.script(DELIVERY_RECORDS, [], [watchId, String(DELIVERIES_LISTED)])) as string[];
    return records.map((record) => JSON.parse(record) as StoredDelivery);
  }

  async deliveryIds(watchId: string): Promise<readonly string[]> {
    return (await this.script(
      "return redis.call('ZRANGE', ARGV[1] .. 'deliveries:' .. ARGV[2], 0, -1)",
      [],
      [watchId],
    )) as string[];
  }

  async pendingDeliveries(): Promise<StoredDelivery[]> {
    const records = (await this.script(DELIVERY_RECORDS, [], ['pending', '0'])) as string[];
    return records.map((record) => JSON.parse(record) as StoredDelivery).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
  }

  async adoptOldLists(): Promise<number> {
    await this.once.run();
    const moved = this.moved;
    this.moved = 0;
    return moved;
  }

  /** Runs a script whose ARGV[1] is the prefix, under the deadline, once the move is done. */
  private async script(script: string, keys: string[], parameters: string[]): Promise<unknown> {
    if (!this.once.done) await this.once.run();
    return this.call((client) => client.eval(script, { keys, arguments: [this.prefix, ...parameters] }));
  }

  private call<T>(use: (client: RedisWatchClient) => Promise<T>): Promise<T> {
    return this.options.guard.run(async () => use(await this.options.client()));
  }

  /**
   * Moves the watches and deliveries that releases before these structures kept as Keyv values
   * (`<namespace>::watch:<id>`, `<namespace>::delivery:<id>`, with lists beside them) into them, as the
   * SQL stores do (lib/stores/sql/watches.ts): the records count, not the lists, so a store a killed
   * process left half done comes out whole, each key's count being the size of its set of watches; every
   * moved watch is noted unscheduled, for the engine's next start to schedule. Each record is moved by
   * one script (inserted, unless its id is there already; 500 sent at once, in order) and then deleted, so a move cut off goes on
   * where it stopped. Whether there is anything to move is asked first of the lists every watch of those
   * releases was in (all, unscheduled, pending deliveries: 64 values each) and of the length of the
   * append-only list before them, in one read: a start on a store with nothing to move scans nothing.
   */
  private async moveKeyvRecords(): Promise<void> {
    const keyv = `${this.options.namespace}::`;
    const lists = ['watch-list:all', 'watch-list:unscheduled', 'delivery-list:pending'].flatMap((list) =>
      Array.from({ length: 64 }, (_, n) => `${keyv}${list}:${n}`),
    );
    const probed = await this.call((client) => client.mGet([...lists, `${this.options.namespace}:counter:watches:all:length`]));
    if (probed.every((value) => value === null)) return;
    const run = (script: string, keys: string[], parameters: string[]): Promise<unknown> =>
      this.call((client) => client.eval(script, { keys, arguments: [this.prefix, ...parameters] }));
    for (const kind of ['watch', 'delivery'] as const) {
      const found: OldWatchRecord<WatchRecord | StoredDelivery>[] = [];
      const names = await this.scan(`${keyv}${kind}:*`);
      for (let start = 0; start < names.length; start += MOVE_BATCH) {
        const batch = names.slice(start, start + MOVE_BATCH);
        const texts = await this.call((client) => client.mGet(batch));
        batch.forEach((name, n) => {
          const record = texts[n] == null ? undefined : oldRecord(texts[n]!, kind);
          if (record !== undefined) found.push({ name, record });
        });
      }
      byCreation(found);
      for (let start = 0; start < found.length; start += MOVE_BATCH) {
        // Sent at once, in order of creation (one connection keeps it), then deleted once all are in.
        const batch = found.slice(start, start + MOVE_BATCH);
        await Promise.all(
          batch.map(({ record }) =>
            kind === 'watch'
              ? run(INSERT, [this.watchChanges], insertArguments(record as WatchRecord))
              : run(INSERT_DELIVERY, [this.deliveryChanges], deliveryArguments(record as StoredDelivery)),
          ),
        );
        await this.call((client) => client.del(batch.map(({ name }) => name)));
      }
      if (kind === 'watch') this.moved += found.length;
    }
    for (const list of OLD_WATCH_LISTS) {
      const names = [
        ...(await this.scan(`${keyv}${list}*`)),
        ...(await this.scan(`${this.options.namespace}:counter:${list}*`)).filter(
          (name) => name !== this.watchChanges && name !== this.deliveryChanges,
        ),
      ];
      for (let start = 0; start < names.length; start += 500) {
        await this.call((client) => client.del(names.slice(start, start + 500)));
      }
    }
  }

  /** Every key matching `pattern`, read a SCAN call at a time. */
  private async scan(pattern: string): Promise<string[]> {
    const names: string[] = [];
    let cursor = '0';
    do {
      const page = await this.call((client) => client.scan(cursor, { MATCH: pattern, COUNT: SCAN_COUNT }));
      cursor = String(page.cursor);
      names.push(...page.keys);
    } while (cursor !== '0');
    return names;
  }
}

/** The ARGV (after the prefix) of INSERT for a watch of an older release: no limit, noted unscheduled. */
function insertArguments(watch: WatchRecord): string[] {
  return [watch.id, JSON.stringify(watch), watch.owner, watch.keyId, String(Number.MAX_SAFE_INTEGER), '1'];
}

/** The ARGV (after the prefix) of the scripts that write a delivery. */
function deliveryArguments(delivery: StoredDelivery): string[] {
  return [
    delivery.id,
    delivery.watchId,
    JSON.stringify(delivery),
    delivery.status === 'pending' ? '1' : '0',
    String(DELIVERIES_LISTED),
  ];
}
