import type { ApiKey, KeyEntry, KeyMark, KeyPage, KeyPageQuery, KeyRecords, SecretRecord } from '../../ports/key-store.js';
import { movableKeys, type OldKeyRecord } from '../../records/old-keys.js';
import { publicKey, searchedText } from '../../records/stored-key.js';
import type { StoreGuard } from '../shared/guard.js';
import { deserialize } from '../shared/serialize.js';
import type { RedisWatchClient } from './watches.js';
import { SetUpOnce } from '../shared/set-up-once.js';

/** The client the keys need: the watches' (scripts, SCAN), and HGET. */
export type RedisKeyClient = RedisWatchClient & { hGet(key: string, field: string): Promise<string | null | undefined> };

// Keys as Redis's own structures, under `<namespace>:kr:` (docs/storage.md, "Keys and sessions as
// records"): a hash per key (`key:<id>`: its record); a string per secret (`secret:<digest>`: the key's id,
// and for an old secret `|` and until when it works) and a hash of each key's secrets (`secrets:<id>`);
// the keys in order in a sorted set of all and one per owner, whose members are `<createdAt>|<id>` at one
// score, so that Redis keeps them in the list's order and a page starts at its cursor in O(log n); a hash
// of what the list is filtered by (`lines`: a key's member to its line, see {@link lineOf}), read in one
// HMGET for all the keys a filter checks; a set per trigram of the searched text (`gram:<trigram>`,
// members as the ordered sets'), so that a search of three characters or more reads the keys holding all
// its trigrams, not every key. Each change is one Lua script, which Redis runs whole. ARGV[1] is the prefix.

/** Lua: the trigrams of a line of ARGV (joined by line breaks), each set given `command` with `member`. */
const GRAMS = `
local function grams(p, command, joined, member)
  for gram in string.gmatch(joined, '[^\\n]+') do redis.call(command, p .. 'gram:' .. gram, member) end
end`;

/** ARGV: prefix, id, record, member, line, owner, trigrams, then digest and grace pairs. */
const INSERT = `${GRAMS}
local p = ARGV[1]
local k = p .. 'key:' .. ARGV[2]
if redis.call('EXISTS', k) == 1 then return 0 end
redis.call('HSET', k, 'record', ARGV[3])
redis.call('HSET', p .. 'lines', ARGV[4], ARGV[5])
grams(p, 'SADD', ARGV[7], ARGV[4])
for i = 8, #ARGV, 2 do
  local grace = ARGV[i + 1]
  redis.call('SET', p .. 'secret:' .. ARGV[i], grace == '' and ARGV[2] or (ARGV[2] .. '|' .. grace))
  redis.call('HSET', p .. 'secrets:' .. ARGV[2], ARGV[i], grace)
end
redis.call('ZADD', p .. 'all', 0, ARGV[4])
redis.call('ZADD', p .. 'owner:' .. ARGV[6], 0, ARGV[4])
return 1`;

/**
 * ARGV: prefix, id, record before, record after, line after, member, the trigrams the key leaves, those
 * it gains. 1 when it was the record before.
 */
const CHANGE = `${GRAMS}
local k = ARGV[1] .. 'key:' .. ARGV[2]
if redis.call('HGET', k, 'record') ~= ARGV[3] then return 0 end
redis.call('HSET', k, 'record', ARGV[4])
redis.call('HSET', ARGV[1] .. 'lines', ARGV[6], ARGV[5])
grams(ARGV[1], 'SREM', ARGV[7], ARGV[6])
grams(ARGV[1], 'SADD', ARGV[8], ARGV[6])
return 1`;

/** ARGV: prefix, id, record before, new digest, grace of the current secret ('' for none), now. */
const ROLL = `
local p, id = ARGV[1], ARGV[2]
if redis.call('HGET', p .. 'key:' .. id, 'record') ~= ARGV[3] then return 0 end
local secrets = p .. 'secrets:' .. id
local held = redis.call('HGETALL', secrets)
for i = 1, #held, 2 do
  local digest, grace = held[i], held[i + 1]
  if grace == '' and ARGV[5] ~= '' then
    redis.call('SET', p .. 'secret:' .. digest, id .. '|' .. ARGV[5])
    redis.call('HSET', secrets, digest, ARGV[5])
  elseif grace == '' or tonumber(grace) <= tonumber(ARGV[6]) then
    redis.call('DEL', p .. 'secret:' .. digest)
    redis.call('HDEL', secrets, digest)
  end
end
redis.call('SET', p .. 'secret:' .. ARGV[4], id)
redis.call('HSET', secrets, ARGV[4], '')
return 1`;

/** ARGV: prefix, digest. The key's record and until when the secret works ('' for the current one). */
const BY_SECRET = `
local ref = redis.call('GET', ARGV[1] .. 'secret:' .. ARGV[2])
if not ref then return false end
local bar = string.find(ref, '|', 1, true)
local id, grace = ref, ''
if bar then id, grace = string.sub(ref, 1, bar - 1), string.sub(ref, bar + 1) end
local record = redis.call('HGET', ARGV[1] .. 'key:' .. id, 'record')
if not record then return false end
return {record, grace}`;

/**
 * A page of keys. ARGV: prefix, index (its name after the prefix: `all` or `owner:<owner>`), limit,
 * 'after' / 'before' / '' and the member of the mark, then the filters: status ('' for any), now (ISO
 * 8601), scope (as ',scope,'), search, and the search's trigrams ('' for a search under three characters).
 * Answers {total, has next, has previous, records…}.
 *
 * Without a filter, the page is read from the index at its cursor and the total is the index's size.
 * With one, the total is exact, so every key the filters may keep is counted, and the work is kept to what
 * that needs: the candidates are the keys in every set of the search's trigrams (SINTER, which walks the
 * smallest set), else every key of the index; their lines are read in one HMGET a thousand (a call a key
 * cost twice as much), checked in Lua, and only the page's records are read. A search of exactly one
 * trigram on the whole list, with no other filter, is its set: nothing is checked.
 */
const PAGE = `
local p, limit, mode, mark = ARGV[1], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local status, now, scope, search, needle = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local index = p .. ARGV[2]
local function records(members)
  local out = {}
  for i, member in ipairs(members) do
    out[i] = redis.call('HGET', p .. 'key:' .. string.sub(member, string.find(member, '|', 1, true) + 1), 'record')
  end
  return out
end
local function reply(total, members, more, earlier)
  local out = {total, more and 1 or 0, earlier and 1 or 0}
  for _, record in ipairs(records(members)) do table.insert(out, record) end
  return out
end
local function reversed(list)
  local out = {}
  for i = #list, 1, -1 do table.insert(out, list[i]) end
  return out
end
if status == '' and scope == '' and search == '' then
  local total = redis.call('ZCARD', index)
  if mode == 'before' then
    local newer = redis.call('ZRANGEBYLEX', index, '(' .. mark, '+', 'LIMIT', 0, limit + 1)
    if #newer > limit then
      table.remove(newer)
      return reply(total, reversed(newer), true, true)
    end
    mode = ''
  end
  local from = mode == 'after' and ('(' .. mark) or '+'
  local members = redis.call('ZREVRANGEBYLEX', index, from, '-', 'LIMIT', 0, limit + 1)
  local more = #members > limit
  if more then table.remove(members) end
  local earlier = false
  if mode == 'after' and #members > 0 then
    earlier = #redis.call('ZRANGEBYLEX', index, '(' .. members[1], '+', 'LIMIT', 0, 1) > 0
  end
  return reply(total, members, more, earlier)
end
-- The keys the filters keep: those of the index in its order, else the search's, put in order once checked.
local matching
if needle ~= '' then
  local sets = {}
  for gram in string.gmatch(needle, '[^\\n]+') do table.insert(sets, p .. 'gram:' .. gram) end
  matching = redis.call('SINTER', unpack(sets))
else
  matching = redis.call('ZREVRANGE', index, 0, -1)
end
if needle ~= search or ARGV[2] ~= 'all' or status ~= '' or scope ~= '' then
  -- A key's line: its revoked mark, expiry, scopes, owner, then its searched text (name, owner, id).
  local owner = ARGV[2] ~= 'all' and string.sub(ARGV[2], 7) or nil
  local kept = {}
  for from = 1, #matching, 1000 do
    local batch = {unpack(matching, from, math.min(from + 999, #matching))}
    local lines = redis.call('HMGET', p .. 'lines', unpack(batch))
    for i, line in ipairs(lines) do
      local a = string.find(line, '\\n', 1, true)
      local b = string.find(line, '\\n', a + 1, true)
      local c = string.find(line, '\\n', b + 1, true)
      local d = string.find(line, '\\n', c + 1, true)
      local ok = true
      if status ~= '' then
        local expires = string.sub(line, a + 1, b - 1)
        local state = 'active'
        if a > 1 then state = 'revoked' elseif expires ~= '' and expires <= now then state = 'expired' end
        ok = state == status
      end
      if ok and scope ~= '' then ok = string.find(string.sub(line, b + 1, c - 1), scope, 1, true) ~= nil end
      if ok and owner then ok = string.sub(line, c + 1, d - 1) == owner end
      if ok and search ~= '' then ok = string.find(line, search, d + 1, true) ~= nil end
      if ok then table.insert(kept, batch[i]) end
    end
  end
  matching = kept
end
if needle ~= '' then
  table.sort(matching)
  matching = reversed(matching)
end
local start = 1
if mode == 'after' then
  start = #matching + 1
  for i, member in ipairs(matching) do
    if member < mark then start = i break end
  end
elseif mode == 'before' then
  local stop = #matching + 1
  for i, member in ipairs(matching) do
    if member <= mark then stop = i break end
  end
  start = math.max(1, stop - limit)
end
local page = {}
for i = start, math.min(start + limit - 1, #matching) do table.insert(page, matching[i]) end
return reply(#matching, page, start + limit <= #matching, start > 1 and #page > 0)`;

/**
 * Moves up to ARGV[2] keys of the layout before the lines (the commits of 2026-11-29 that kept each key's
 * filtered fields in a sorted set `filtered` and in its hash) into the `lines` hash, the owner taken from
 * the record. ARGV: prefix, count. Answers how many are left.
 */
const LINES = `
local p = ARGV[1]
for _, old in ipairs(redis.call('ZRANGE', p .. 'filtered', 0, tonumber(ARGV[2]) - 1)) do
  local a = string.find(old, '\\n', 1, true)
  local member = string.sub(old, 1, a - 1)
  local k = p .. 'key:' .. string.sub(member, string.find(member, '|', 1, true) + 1)
  local record = redis.call('HGET', k, 'record')
  if record then
    local d = a
    for _ = 1, 3 do d = string.find(old, '\\n', d + 1, true) end
    local line = string.sub(old, a + 1, d) .. cjson.decode(record).owner .. string.sub(old, d)
    redis.call('HSET', p .. 'lines', member, line)
    redis.call('HDEL', k, 'filtered')
  end
  redis.call('ZREM', p .. 'filtered', old)
end
return redis.call('ZCARD', p .. 'filtered')`;

/** Keys read per SCAN call when moving those of older releases. */
const SCAN_COUNT = 1000;

/** How a {@link RedisKeyRecords} reaches Redis. */
export interface RedisKeyOptions {
  client: () => Promise<RedisKeyClient>;
  guard: StoreGuard;
  namespace: string;
  /** Time of the grace periods of the secrets moved from older releases. */
  now: () => number;
}

/** Keys as Redis structures ({@link KeyRecords}); what older releases kept as Keyv values is moved in at the first call. */
export class RedisKeyRecords implements KeyRecords {
  /** What the names of the structures start with: `<namespace>:kr:`. */
  readonly prefix: string;
  /** The keys of older releases moved ({@link moveKeyvRecords}), and those of the layout before the lines ({@link LINES}). */
  private readonly once = new SetUpOnce(async () => {
    while (((await this.run(LINES, [String(SCAN_COUNT)])) as number) > 0);
    await this.moveKeyvRecords();
  });

  constructor(private readonly options: RedisKeyOptions) {
    this.prefix = `${options.namespace}:kr:`;
  }

  async insert(key: ApiKey, digest: string): Promise<void> {
    await this.script(INSERT, insertArguments(key, [{ digest }]));
  }

  async insertMany(entries: KeyEntry[]): Promise<void> {
    if (!this.once.done) await this.once.run();
    await this.insertEach(entries);
  }

  /** Inserts each key by a script of its own, a batch at a time (sent together: node-redis pipelines them). */
  private async insertEach(entries: KeyEntry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += SCAN_COUNT) {
      await Promise.all(
        entries.slice(start, start + SCAN_COUNT).map(({ key, secrets }) => this.run(INSERT, insertArguments(key, secrets))),
      );
    }
  }

  async bySecret(digest: string): Promise<SecretRecord | undefined> {
    await this.readyFor([digest]);
    const found = (await this.run(BY_SECRET, [digest])) as [string, string] | null;
    if (found === null) return undefined;
    const key = JSON.parse(found[0]) as ApiKey;
    return found[1] === '' ? { key } : { key, graceUntil: Number(found[1]) };
  }

  async get(id: string): Promise<ApiKey | undefined> {
    return (await this.read(id))?.key;
  }

  async change(id: string, apply: (key: ApiKey) => ApiKey): Promise<ApiKey | undefined> {
    // Read, changed here, written by a script only if no other change came in between; else again.
    for (;;) {
      const read = await this.read(id);
      if (read === undefined) return undefined;
      const key = apply(read.key);
      if (key === read.key) return key;
      const record = JSON.stringify(publicKey(key));
      const [left, gained] = [trigramsOf(read.key), trigramsOf(key)];
      const changed = [
        id,
        read.record,
        record,
        lineOf(key),
        memberOf(key),
        [...left].filter((gram) => !gained.has(gram)).join('\n'),
        [...gained].filter((gram) => !left.has(gram)).join('\n'),
      ];
      if ((await this.script(CHANGE, changed)) === 1) return key;
    }
  }

  async roll(
    id: string,
    check: (key: ApiKey) => void,
    digest: string,
    graceUntil: number | null,
    now: number,
  ): Promise<ApiKey | undefined> {
    for (;;) {
      const read = await this.read(id);
      if (read === undefined) return undefined;
      check(read.key);
      const rolled = await this.script(ROLL, [
        id,
        read.record,
        digest,
        graceUntil === null ? '' : String(graceUntil),
        String(now),
      ]);
      if (rolled === 1) return read.key;
    }
  }

  async all(): Promise<ApiKey[]> {
    const page = await this.page({ limit: 1_000_000_000, now: 0 });
    return page.items.reverse();
  }

  async page(query: KeyPageQuery): Promise<KeyPage> {
    // No field holds a line break: such a search matches nothing (the searched text has one between fields).
    if (query.search?.includes('\n') === true) return { items: [], total: 0, next: null, previous: null };
    const mark = query.after ?? query.before;
    const [total, more, earlier, ...records] = (await this.script(PAGE, [
      query.owner === undefined ? 'all' : `owner:${query.owner}`,
      String(query.limit),
      query.after !== undefined ? 'after' : query.before !== undefined ? 'before' : '',
      mark === undefined ? '' : memberOf(mark),
      query.status ?? '',
      new Date(query.now).toISOString(),
      query.scope === undefined ? '' : `,${query.scope},`,
      query.search ?? '',
      query.search === undefined ? '' : [...trigrams(query.search)].join('\n'),
    ])) as [number, number, number, ...string[]];
    const items = records.map((record) => JSON.parse(record) as ApiKey);
    return {
      items,
      total: Number(total),
      next: more === 1 ? markOf(items.at(-1)!) : null,
      previous: earlier === 1 ? markOf(items[0]!) : null,
    };
  }

  ready(): Promise<void> {
    return this.once.run();
  }

  /**
   * Resolves once the records answer for the secrets of `digests`: at once when the keys of older releases
   * are moved; while their move runs (100,000 keys take tens of seconds), once the keys of these secrets
   * are moved, each by itself ({@link moveKeysOf}), so that a request with a key is answered meanwhile
   * instead of waiting for the whole move past the store's deadline.
   */
  async readyFor(digests: string[]): Promise<void> {
    if (this.once.done) return;
    const moving = this.once.run();
    moving.catch(() => undefined); // A failed move is tried again by the next call; its error is that call's.
    await Promise.race([moving, this.moveKeysOf(digests)]);
  }

  /** A key's record, and its text as stored (what a change compares). */
  private async read(id: string): Promise<{ key: ApiKey; record: string } | undefined> {
    if (!this.once.done) await this.once.run();
    const record = await this.call((client) => client.hGet(`${this.prefix}key:${id}`, 'record'));
    return record === null || record === undefined ? undefined : { key: JSON.parse(record) as ApiKey, record };
  }

  /** Runs a script whose ARGV[1] is the prefix, under the deadline, once the move is done. */
  private async script(script: string, parameters: string[]): Promise<unknown> {
    if (!this.once.done) await this.once.run();
    return this.run(script, parameters);
  }

  private run(script: string, parameters: string[]): Promise<unknown> {
    return this.call((client) => client.eval(script, { keys: [], arguments: [this.prefix, ...parameters] }));
  }

  private call<T>(use: (client: RedisKeyClient) => Promise<T>): Promise<T> {
    return this.options.guard.run(async () => use(await this.options.client()));
  }

  /**
   * Moves the keys that releases before these structures kept as Keyv values (`<namespace>::key:<digest>`,
   * `<namespace>::key-id:<id>`, an append-only list of digests beside them) into them, as the SQL stores
   * do (lib/stores/sql/keys.ts): the records count, not the list. Each key is moved by one script
   * (inserted, unless its id is there already) and its values then deleted, so a move cut off goes on
   * where it stopped and two processes moving at once move each key once. Whether there is anything to
   * move is asked of the counter of the list every key of those releases was appended to: a start on a
   * store with nothing to move scans nothing.
   */
  private async moveKeyvRecords(): Promise<void> {
    const { namespace } = this.options;
    const keyv = `${namespace}::`;
    const length = `${namespace}:counter:keys:length`;
    if ((await this.call((client) => client.get(length))) === null) return;
    const records: OldKeyRecord[] = [];
    for (const pattern of [`${keyv}key:*`, `${keyv}key-id:*`]) {
      const names = await this.scan(pattern);
      for (let start = 0; start < names.length; start += SCAN_COUNT) {
        const batch = names.slice(start, start + SCAN_COUNT);
        const values = await this.call((client) => client.mGet(batch));
        batch.forEach((name, n) => {
          const text = values[n];
          records.push({
            name: name.slice(keyv.length),
            value: text === null || text === undefined ? undefined : keyvValue(text),
          });
        });
      }
    }
    const { keys } = movableKeys(records, this.options.now());
    for (let start = 0; start < keys.length; start += SCAN_COUNT) {
      const batch = keys.slice(start, start + SCAN_COUNT);
      await this.insertEach(batch);
      await this.call((client) => client.del(batch.flatMap(({ names }) => names.map((name) => `${keyv}${name}`))));
    }
    // What no key holds (an old secret past its grace, a half-made roll), then the list and its counter.
    const rest = [
      ...(await this.scan(`${keyv}key:*`)),
      ...(await this.scan(`${keyv}key-id:*`)),
      ...(await this.scan(`${keyv}keys:*`)),
    ];
    for (let start = 0; start < rest.length; start += 500)
      await this.call((client) => client.del(rest.slice(start, start + 500)));
    await this.call((client) => client.del([length]));
  }

  /**
   * Moves the keys of older releases that hold these secrets, as {@link moveKeyvRecords} moves every key,
   * from the records that make each one: the secret's, its key's `key-id` and the secret it names, and the
   * old secrets these name. A key moved already is skipped by its id (a move inserts a key before it
   * deletes its old records, so records found partly deleted belong to a key moved already).
   */
  private async moveKeysOf(digests: string[]): Promise<void> {
    const keyv = `${this.options.namespace}::`;
    const read = async (names: string[]): Promise<OldKeyRecord[]> => {
      if (names.length === 0) return [];
      const values = await this.call((client) => client.mGet(names.map((name) => `${keyv}${name}`)));
      return names.map((name, n) => {
        const text = values[n];
        return { name, value: text === null || text === undefined ? undefined : keyvValue(text) };
      });
    };
    const found = (await read(digests.map((digest) => `key:${digest}`))).filter(({ value }) => isObject(value));
    if (found.length === 0) return;
    const ids = new Set(found.map(({ value }) => (value as { id?: unknown }).id).filter((id) => typeof id === 'string'));
    const named = await read([...ids].map((id) => `key-id:${id}`));
    const current = await read(named.flatMap(({ value }) => (typeof value === 'string' ? [`key:${value}`] : [])));
    const older = [...found, ...current].flatMap(({ value }) =>
      isObject(value) && Array.isArray(value.previous)
        ? (value.previous as { digest?: unknown }[]).flatMap(({ digest }) =>
            typeof digest === 'string' ? [`key:${digest}`] : [],
          )
        : [],
    );
    const records = new Map([...found, ...named, ...current, ...(await read(older))].map((record) => [record.name, record]));
    const { keys } = movableKeys([...records.values()], this.options.now());
    await this.insertEach(keys);
    const names = keys.flatMap(({ names }) => names.map((name) => `${keyv}${name}`));
    if (names.length > 0) await this.call((client) => client.del(names));
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

/** The ARGV (after the prefix) of INSERT. */
function insertArguments(key: ApiKey, secrets: { digest: string; graceUntil?: number }[]): string[] {
  return [
    key.id,
    JSON.stringify(publicKey(key)),
    memberOf(key),
    lineOf(key),
    key.owner,
    [...trigramsOf(key)].join('\n'),
    ...secrets.flatMap(({ digest, graceUntil }) => [digest, graceUntil === undefined ? '' : String(graceUntil)]),
  ];
}

/**
 * A key's line in the `lines` hash, what the filtered lists check: whether it is revoked, its expiry, its
 * scopes, its owner and its searched text, a line each (none of them holds a line break).
 */
function lineOf(key: ApiKey): string {
  return [key.revokedAt === null ? '' : '1', key.expiresAt ?? '', `,${key.scopes.join(',')},`, key.owner, searchedText(key)].join(
    '\n',
  );
}

/** The trigrams of a key's searched text (of each of its fields: none spans two). */
function trigramsOf(key: ApiKey): Set<string> {
  const all = new Set<string>();
  for (const field of searchedText(key).split('\n')) for (const gram of trigrams(field)) all.add(gram);
  return all;
}

/** The trigrams of `text` (lower-cased already), by code point; none for a text under three. */
function trigrams(text: string): Set<string> {
  const points = Array.from(text);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) grams.add(points.slice(i, i + 3).join(''));
  return grams;
}

/** A key's member of the sorted sets: ISO 8601 instants of one length sort as the instants do. */
function memberOf(mark: KeyMark): string {
  return `${mark.createdAt}|${mark.id}`;
}

function markOf(key: ApiKey): KeyMark {
  return { createdAt: key.createdAt, id: key.id };
}

/** The value of a record as Keyv wrote it (`{"value":…,"expires":…}`), or `undefined`. */
function keyvValue(text: string): unknown {
  try {
    return deserialize<{ value?: unknown }>(text).value;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
