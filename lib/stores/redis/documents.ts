import QuickLRU from 'quick-lru';
import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';
import type {
  DocumentQuery,
  DocumentRows,
  DocumentStore,
  NewStoredDocument,
  StoredChanges,
  StoredDocument,
} from '../../ports/document-store.js';
import {
  DOCUMENT_ID_COUNTER,
  DOCUMENT_KEY_PREFIX,
  compareCodePoints,
  documentIndexName,
  documentKey,
  isStoredDocument,
  nameSortKey,
  searchText,
} from '../../records/stored-document.js';
import { AppendOnlyIndex } from '../shared/append-only-index.js';
import { StoreGuard, storeClosed } from '../shared/guard.js';
import type { KeyvKvStore } from '../shared/keyv-kv-store.js';
import { LeaseQueue, withLease } from '../shared/lease.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { RedisEvalClient } from './counters.js';

// Per owner and template (keys under `<namespace>:documents:<owner's length>:<owner>:<template>:`):
//   id, id:1, id:0        sorted sets of the ids (score: the id) of all documents, the favorites, the others
//   name, name:1, name:0  the same by name: every score 0, members `nameSortKey(name)` NUL, the id on 16
//                         digits, so that Redis's byte order (UTF-8: code point order) is the name order
//                         with ties by id, in both directions
//   ordinals              hash id → ordinal (1, 2, … as documents arrive: the bit of a bitmap)
//   entries               hash ordinal → `[id, favorite (1|0), name, its nameSortKey]` (JSON)
//   texts                 hash ordinal → the searched result (`searchText`), which a search by result checks
//   n:<gram>, r:<gram>    the ordinals whose searched name (n) or result (r) holds the run of 1, 2 or 3
//                         UTF-16 code units <gram>: a set while few, a bitmap once many
//   bitmaps               hash of the grams' keys that are bitmaps
// Per owner: `indexed` once its documents written by older releases are in the indexes.

/** Writes a document's record (or deletes it) and its place in every index, in one atomic step. */
const WRITE = `
-- KEYS: 1 record, 2 ordinals, 3 entries, 4 ordinal counter, 5-7 id, id:1, id:0, 8-10 name, name:1, name:0,
-- 11 the grams that are bitmaps, 12 texts, then ARGV[8] grams to clear, then the grams to set.
-- ARGV: 1 put|delete, 2 id, 3 record, 4 favorite (1|0), 5 name member, 6 entry, 7 former name member
-- ('' for none), 8 grams to clear, 9 the searched result
local id = ARGV[2]
local ordinal = redis.call('HGET', KEYS[2], id)
if ARGV[1] == 'put' then redis.call('SET', KEYS[1], ARGV[3]) else redis.call('DEL', KEYS[1]) end
-- Which of KEYS[from…to] are bitmaps (one call, rather than a TYPE each).
local function bitmaps(from, to)
  local found = {}
  for start = from, to, 1000 do
    local kinds = redis.call('HMGET', KEYS[11], unpack(KEYS, start, math.min(start + 999, to)))
    for n, kind in ipairs(kinds) do found[start + n - 1] = kind end
  end
  return found
end
if ARGV[7] ~= '' then
  for i = 8, 10 do redis.call('ZREM', KEYS[i], ARGV[7]) end
end
redis.call('ZREM', KEYS[6], id)
redis.call('ZREM', KEYS[7], id)
local cleared = 12 + tonumber(ARGV[8])
if ordinal then
  local kinds = bitmaps(13, cleared)
  for i = 13, cleared do
    if kinds[i] then redis.call('SETBIT', KEYS[i], ordinal, 0) else redis.call('SREM', KEYS[i], ordinal) end
  end
end
if ARGV[1] == 'delete' then
  redis.call('ZREM', KEYS[5], id)
  if ordinal then
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], ordinal)
    redis.call('HDEL', KEYS[12], ordinal)
  end
  return 1
end
if not ordinal then
  ordinal = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[2], id, ordinal)
end
redis.call('HSET', KEYS[3], ordinal, ARGV[6])
redis.call('HSET', KEYS[12], ordinal, ARGV[9])
local favorite = ARGV[4] == '1'
redis.call('ZADD', KEYS[5], id, id)
redis.call('ZADD', favorite and KEYS[6] or KEYS[7], id, id)
redis.call('ZADD', KEYS[8], 0, ARGV[5])
redis.call('ZADD', favorite and KEYS[9] or KEYS[10], 0, ARGV[5])
-- A set becomes a bitmap once it would take more room than one: past Redis's compact sets of integers
-- (512), when its members outnumber the bitmap's bytes (the ordinals handed out / 8) / 64 bytes a member.
local most = math.max(512, tonumber(redis.call('GET', KEYS[4])) / 512)
local kinds = bitmaps(cleared + 1, #KEYS)
for i = cleared + 1, #KEYS do
  local gram = KEYS[i]
  if kinds[i] then
    redis.call('SETBIT', gram, ordinal, 1)
  elseif redis.call('SADD', gram, ordinal) == 1 and redis.call('SCARD', gram) > most then
    local members = redis.call('SMEMBERS', gram)
    redis.call('DEL', gram)
    for _, member in ipairs(members) do redis.call('SETBIT', gram, member, 1) end
    redis.call('HSET', KEYS[11], gram, 1)
  end
end
return 1`;

/**
 * Indexes documents as their records are (an upgrade's batch, of one owner and template), each unless it
 * is indexed already; each gram's new ordinals in one command.
 */
const INDEX = `
-- KEYS: 1 ordinals, 2 entries, 3 ordinal counter, 4-6 id, id:1, id:0, 7-9 name, name:1, name:0, 10 the grams
-- that are bitmaps, 11 texts, then the grams. ARGV: per document, its id, favorite (1|0), name member,
-- entry, the numbers of its grams among KEYS[12…] (1 for KEYS[12]) separated by commas, and its searched
-- result.
local postings = {}
for first = 1, #ARGV, 6 do
  local id = ARGV[first]
  if not redis.call('HGET', KEYS[1], id) then
    local ordinal = redis.call('INCR', KEYS[3])
    redis.call('HSET', KEYS[1], id, ordinal)
    redis.call('HSET', KEYS[2], ordinal, ARGV[first + 3])
    redis.call('HSET', KEYS[11], ordinal, ARGV[first + 5])
    local favorite = ARGV[first + 1] == '1'
    redis.call('ZADD', KEYS[4], id, id)
    redis.call('ZADD', favorite and KEYS[5] or KEYS[6], id, id)
    redis.call('ZADD', KEYS[7], 0, ARGV[first + 2])
    redis.call('ZADD', favorite and KEYS[8] or KEYS[9], 0, ARGV[first + 2])
    for gram in string.gmatch(ARGV[first + 4], '%d+') do
      local n = 11 + tonumber(gram)
      local ordinals = postings[n]
      if not ordinals then
        ordinals = {}
        postings[n] = ordinals
      end
      ordinals[#ordinals + 1] = ordinal
    end
  end
end
-- Sets bits of a bitmap, a thousand a command.
local function setBits(key, ordinals)
  for start = 1, #ordinals, 1000 do
    local fields = {}
    for i = start, math.min(start + 999, #ordinals) do
      fields[#fields + 1] = 'SET'
      fields[#fields + 1] = 'u1'
      fields[#fields + 1] = ordinals[i]
      fields[#fields + 1] = 1
    end
    redis.call('BITFIELD', key, unpack(fields))
  end
end
local most = math.max(512, tonumber(redis.call('GET', KEYS[3]) or '0') / 512)
for n, ordinals in pairs(postings) do
  local gram = KEYS[n]
  if redis.call('HEXISTS', KEYS[10], gram) == 1 then
    setBits(gram, ordinals)
  else
    for start = 1, #ordinals, 1000 do redis.call('SADD', gram, unpack(ordinals, start, math.min(start + 999, #ordinals))) end
    if redis.call('SCARD', gram) > most then
      local members = redis.call('SMEMBERS', gram)
      redis.call('DEL', gram)
      setBits(gram, members)
      redis.call('HSET', KEYS[10], gram, 1)
    end
  end
end
return 0`;

/** One page of an ordered set, and its size: the page's records, in order. */
const PAGE = `
-- KEYS: 1 the sorted set. ARGV: 1 first rank, 2 last rank, 3 asc|desc, 4 the records' key prefix, 5 id|name
local answer = { redis.call('ZCARD', KEYS[1]) }
local members
if ARGV[3] == 'desc' then members = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'REV')
else members = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2]) end
for _, member in ipairs(members) do
  local id = member
  if ARGV[5] == 'name' then id = string.match(string.sub(member, -16), '^0*(%d+)$') end
  answer[#answer + 1] = redis.call('GET', ARGV[4] .. id) or ''
end
return answer`;

/** The ordinals of the documents that hold every gram of KEYS[2…]. */
const SEARCH = `
-- KEYS: 1 a scratch key, then the grams.
local sets, bitmaps = {}, {}
for i = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'none' then return {} end
  if kind == 'set' then sets[#sets + 1] = KEYS[i] else bitmaps[#bitmaps + 1] = KEYS[i] end
end
local ordinals = {}
if #sets > 0 then
  for _, ordinal in ipairs(redis.call('SINTER', unpack(sets))) do
    local all = true
    for _, bitmap in ipairs(bitmaps) do
      if redis.call('GETBIT', bitmap, ordinal) == 0 then all = false break end
    end
    if all then ordinals[#ordinals + 1] = ordinal end
  end
else
  local bits
  if #bitmaps == 1 then bits = redis.call('GET', bitmaps[1]) else
    redis.call('BITOP', 'AND', KEYS[1], unpack(bitmaps))
    bits = redis.call('GET', KEYS[1])
    redis.call('DEL', KEYS[1])
  end
  for i = 1, #bits do
    local byte = string.byte(bits, i)
    if byte ~= 0 then
      for j = 0, 7 do
        if bit.band(byte, bit.rshift(128, j)) ~= 0 then ordinals[#ordinals + 1] = (i - 1) * 8 + j end
      end
    end
  end
end
return ordinals`;

/**
 * The entries of ordinals ARGV[2…] (hash KEYS[1]) whose searched result (hash KEYS[2]) holds ARGV[1] (byte
 * for byte: UTF-8 holds as code points do), or all of them when ARGV[1] is empty.
 */
const ENTRIES = `
local entries = redis.call('HMGET', KEYS[1], unpack(ARGV, 2))
local texts = ARGV[1] ~= '' and redis.call('HMGET', KEYS[2], unpack(ARGV, 2))
local found = {}
for n = 1, #ARGV - 1 do
  local entry = entries[n]
  if entry and (not texts or (texts[n] and string.find(texts[n], ARGV[1], 1, true))) then found[#found + 1] = entry end
end
return found`;

/** Reads a key (`GET`). */
const READ = `return redis.call('GET', KEYS[1])`;
/** Sets a key (`SET`). */
const MARK = `redis.call('SET', KEYS[1], ARGV[1]) return 0`;
/** Sets a key to a number unless it holds a larger one. */
const RAISE = `
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;

/**
 * Documents a search reads (and checks, by result) per call: each call stays short however many documents
 * a needle finds (Redis answers no one else while it runs).
 */
const CHECKED_PER_CALL = 1000;
/** Grams a search looks up at most: enough to narrow it down; the match is checked on the text anyway. */
const NEEDLE_GRAMS = 32;
/** Log slots (and documents) an upgrade reads per step. */
const BATCH = 500;
/** Owners this process knows to be indexed, at most. */
const KNOWN_OWNERS = 10_000;

/** What {@link RedisDocumentStore} works with. */
export interface RedisDocumentOptions {
  /** A connected client of the backend. */
  client: () => Promise<RedisEvalClient>;
  /** Holds every command to the backend's deadline. */
  guard: StoreGuard;
  /** The backend's values (the records, and the logs older releases wrote); refuses every call once closed. */
  kv: KeyvKvStore;
  /** The backend's counters (document ids, and the logs older releases kept). */
  counters: CounterStore;
  /** Prefix of the backend's keys on the server. */
  namespace: string;
  /** The backend's deadline: a list waits for the upgrade of an owner's documents half of it at most. */
  timeoutMs: number;
}

type Entry = [id: number, favorite: 0 | 1, name: string, nameKey: string];

/**
 * Documents on Redis: each a record as Keyv writes it (`doc:<id>`, the format older releases wrote, read
 * through the backend's values too), and per owner and template, indexes in Redis that answer every list query of
 * docs/contract.md §3 with work that grows with the page, or with the documents a search finds, never with
 * the owner's documents; this process keeps none of them. A page without a search is one script (its range
 * of a sorted set and the page's records); a search intersects the sets or bitmaps of the needle's grams
 * and checks each document found with `searchText`, so that what matches is exactly what the contract says.
 * Updates and deletes run under the document's lease (lib/stores/shared/lease.ts); each write changes the record and every index in one
 * atomic script. An owner's documents written by an older release (records and a log of ids, no indexes)
 * are indexed once, before its first call.
 */
export class RedisDocumentStore implements DocumentStore {
  /** Updates and deletes of one document, under its lease (`documents:lease:<id>` of the counters). */
  private readonly writes: LeaseQueue;
  /** Owners whose documents are indexed (never undone). */
  private readonly indexedOwners = new QuickLRU<string, true>({ maxSize: KNOWN_OWNERS });
  /** Upgrades under way in this process, by owner. */
  private readonly upgrades = new Map<string, Promise<void>>();
  private readonly recordPrefix: string;

  constructor(private readonly options: RedisDocumentOptions) {
    this.writes = new LeaseQueue(options.counters);
    // Keyv's Redis store writes a record under `<namespace>::<name>`.
    this.recordPrefix = `${options.namespace}::${DOCUMENT_KEY_PREFIX}`;
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    await this.indexed(document.owner);
    const id = await this.options.counters.increment(DOCUMENT_ID_COUNTER);
    if (id === null) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store did not hand out a document id.');
    const stored: StoredDocument = { id, ...document };
    await this.write('put', stored);
    return stored;
  }

  async get(owner: string, id: number): Promise<StoredDocument | undefined> {
    const stored = await this.options.kv.get<unknown>(documentKey(id));
    return isStoredDocument(stored, owner) ? stored : undefined;
  }

  async update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined> {
    await this.indexed(owner);
    return this.writes.run(`documents:lease:${id}`, async () => {
      const latest = await this.get(owner, id);
      if (latest === undefined) return undefined;
      const next: StoredDocument = { ...latest, ...changes };
      await this.write('put', next, latest);
      return next;
    });
  }

  async delete(owner: string, id: number): Promise<boolean> {
    await this.indexed(owner);
    return this.writes.run(`documents:lease:${id}`, async () => {
      const latest = await this.get(owner, id);
      if (latest === undefined) return false;
      await this.write('delete', latest, latest);
      return true;
    });
  }

  async list(owner: string, query: DocumentQuery): Promise<DocumentRows> {
    await this.indexed(owner);
    const keys = this.keysOf(owner, query.templateId);
    if (!query.search) {
      const subset = query.favorite === undefined ? '' : query.favorite ? ':1' : ':0';
      const start = (query.page - 1) * query.perPage;
      const [total, ...records] = (await this.call(
        PAGE,
        [keys + query.sortBy + subset],
        [String(start), String(start + query.perPage - 1), query.sort, this.recordPrefix, query.sortBy],
      )) as [number, ...string[]];
      return { documents: records.map((record) => this.parse(record, owner)).filter(isDefined), total: Number(total) };
    }
    const grams = needleGrams(query.search).map((gram) => `${keys}${query.searchBy === 'name' ? 'n' : 'r'}:${gram}`);
    const ordinals = (await this.call(SEARCH, [keys + 'scratch', ...grams], [])) as number[];
    const search = query.search;
    // Redis checks a result byte for byte; a needle it cannot tell apart is checked here, on the records.
    const checked = query.searchBy === 'result' && !UNSURE.test(search) ? search : '';
    const candidates: { id: number; nameKey: string }[] = [];
    for (let start = 0; start < ordinals.length; start += CHECKED_PER_CALL) {
      const some = ordinals.slice(start, start + CHECKED_PER_CALL).map(String);
      const entries = (await this.call(ENTRIES, [keys + 'entries', keys + 'texts'], [checked, ...some])) as string[];
      for (const entry of entries) {
        const [id, favorite, name, nameKey] = JSON.parse(entry) as Entry;
        if (query.favorite !== undefined && (favorite === 1) !== query.favorite) continue;
        if (query.searchBy === 'name' && !searchText(name).includes(search)) continue;
        candidates.push({ id, nameKey });
      }
    }
    const matched =
      query.searchBy === 'result' && checked === '' ? await this.resultsHolding(owner, candidates, search) : candidates;
    const page = pageOf(sorted(matched, query.sortBy), query);
    const records = await this.options.kv.getMany<unknown>(page.map(({ id }) => documentKey(id)));
    // A document deleted since the search is left out of the page.
    return {
      documents: records.filter((record): record is StoredDocument => isStoredDocument(record, owner)),
      total: matched.length,
    };
  }

  /**
   * The candidates whose result holds `search` as `includes` finds it, read from their records a call at a
   * time: for a needle with half a surrogate pair, or U+FFFD (what such a half reaches Redis as).
   */
  private async resultsHolding<T extends { id: number }>(owner: string, candidates: T[], search: string): Promise<T[]> {
    const holding: T[] = [];
    for (let start = 0; start < candidates.length; start += CHECKED_PER_CALL) {
      const some = candidates.slice(start, start + CHECKED_PER_CALL);
      const records = await this.options.kv.getMany<unknown>(some.map(({ id }) => documentKey(id)));
      some.forEach((candidate, n) => {
        const record = records[n];
        if (isStoredDocument(record, owner) && searchText(record.result).includes(search)) holding.push(candidate);
      });
    }
    return holding;
  }

  /** Writes document `document` (`put`) or deletes it, with its indexes (`former`: as they have it). */
  private async write(op: 'put' | 'delete', document: StoredDocument, former?: StoredDocument): Promise<void> {
    const keys = this.keysOf(document.owner, document.template_id);
    const set = op === 'delete' ? [] : gramsOf(document);
    const kept = new Set(set);
    const cleared = former === undefined ? [] : gramsOf(former).filter((gram) => !kept.has(gram));
    await this.call(
      WRITE,
      [this.recordPrefix + String(document.id), ...[...INDEX_KEYS, ...cleared, ...set].map((name) => keys + name)],
      [
        op,
        String(document.id),
        op === 'put' ? serialize({ value: document }) : '',
        document.favorite ? '1' : '0',
        nameMember(document),
        entryOf(document),
        former === undefined ? '' : nameMember(former),
        String(cleared.length),
        searchText(document.result),
      ],
    );
  }

  /** Indexes `documents` (of the template whose keys start with `keys`) as they are, each unless it is already. */
  private async index(keys: string, documents: StoredDocument[]): Promise<void> {
    const numbers = new Map<string, number>();
    const args = documents.flatMap((document) => {
      const own = gramsOf(document).map((gram) => {
        let number = numbers.get(gram);
        if (number === undefined) numbers.set(gram, (number = numbers.size + 1));
        return number;
      });
      return [
        String(document.id),
        document.favorite ? '1' : '0',
        nameMember(document),
        entryOf(document),
        own.join(','),
        searchText(document.result),
      ];
    });
    await this.call(
      INDEX,
      [...INDEX_KEYS, ...numbers.keys()].map((name) => keys + name),
      args,
    );
  }

  /**
   * Resolves once the owner's documents are in the indexes. Those of an older release are indexed once, by
   * one process at a time, in the background: a call waits for it half the deadline at most, then fails
   * with `ERR_STORE_UNAVAILABLE` (the upgrade goes on; a later call finds it done).
   */
  private async indexed(owner: string): Promise<void> {
    if (this.indexedOwners.has(owner)) return;
    let upgrade = this.upgrades.get(owner);
    if (upgrade === undefined) {
      upgrade = this.upgrade(owner).finally(() => this.upgrades.delete(owner));
      upgrade.catch(() => {});
      this.upgrades.set(owner, upgrade);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The documents of this owner are being indexed.')),
        this.options.timeoutMs / 2,
      );
    });
    try {
      await Promise.race([upgrade, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Indexes the documents that an older release logged for the owner (`documents:<owner>:<n>`, each the id
   * of a document written), a batch of log slots at a time, each under a lease (renewed while its
   * holder runs, about a second once it died): two processes take turns, and one goes on where another
   * stopped or died. A document is indexed once however often it is met; the slots read are deleted. An
   * owner with nothing left to index (every owner of a store that no older release wrote) is marked
   * indexed without a lease, so that no process waits for another's.
   */
  private async upgrade(owner: string): Promise<void> {
    const marker = this.ownerKeys(owner) + 'indexed';
    while ((await this.call(READ, [marker], [])) === null) {
      const { length, first } = await this.slotsLeft(owner);
      if (first > length) {
        await this.call(MARK, [marker], ['1']);
        break;
      }
      await withLease(this.options.counters, `documents:indexing:${owner}`, () => this.upgradeStep(owner, marker), {
        waitMs: 60_000,
      });
    }
    this.indexedOwners.set(owner, true);
  }

  /** The owner's log of an older release, its length, and the first of its slots not indexed yet. */
  private async slotsLeft(owner: string): Promise<{ log: AppendOnlyIndex; length: number; first: number }> {
    const log = new AppendOnlyIndex(this.options.kv, this.options.counters, documentIndexName(owner));
    const [length, done] = await Promise.all([log.length(), this.call(READ, [this.ownerKeys(owner) + 'indexed-to'], [])]);
    return { log, length, first: Number(done ?? 0) + 1 };
  }

  /** Indexes the owner's next batch of log slots, or marks the owner indexed after the last. */
  private async upgradeStep(owner: string, marker: string): Promise<void> {
    if ((await this.call(READ, [marker], [])) !== null) return;
    const { log, length, first } = await this.slotsLeft(owner);
    if (first > length) {
      await this.call(MARK, [marker], ['1']);
      return;
    }
    const slots = Array.from({ length: Math.min(BATCH, length - first + 1) }, (_, n) => first + n);
    // A slot never written (an older process that died while creating) names nothing to find.
    const ids = new Set((await log.at(slots)).filter((value) => value !== undefined && value !== '0').map(Number));
    const records = await this.options.kv.getMany<unknown>([...ids].map(documentKey));
    const byTemplate = new Map<number, StoredDocument[]>();
    for (const record of records) {
      if (isStoredDocument(record, owner))
        byTemplate.set(record.template_id, [...(byTemplate.get(record.template_id) ?? []), record]);
    }
    const indexed: Promise<void>[] = [];
    for (const [templateId, documents] of byTemplate) {
      // A hundred a script: Redis answers no one else while it runs.
      for (let start = 0; start < documents.length; start += 100)
        indexed.push(this.index(this.keysOf(owner, templateId), documents.slice(start, start + 100)));
    }
    await Promise.all(indexed);
    await this.call(RAISE, [this.ownerKeys(owner) + 'indexed-to'], [String(slots[slots.length - 1])]);
    await log.remove(slots);
  }

  private call(script: string, keys: string[], args: string[]): Promise<unknown> {
    // The client would connect again after the backend closed, and nothing would close it.
    if (this.options.kv.closed) return storeClosed();
    return this.options.guard.run(async () => (await this.options.client()).eval(script, { keys, arguments: args }));
  }

  /** The document in record `text` (as Keyv wrote it), when it is one of the owner's. */
  private parse(text: string, owner: string): StoredDocument | undefined {
    if (text === '') return undefined;
    const { value } = deserialize<{ value: unknown }>(text);
    return isStoredDocument(value, owner) ? value : undefined;
  }

  /** The prefix of the owner's keys (its length first, so that no owner's keys are another's). */
  private ownerKeys(owner: string): string {
    return `${this.options.namespace}:documents:${owner.length}:${owner}:`;
  }

  /** The prefix of the keys of the owner's documents of template `templateId`. */
  private keysOf(owner: string, templateId: number): string {
    return `${this.ownerKeys(owner)}${templateId}:`;
  }
}

/** The keys of a template's indexes that every write changes, in the order the scripts take them after the record's. */
const INDEX_KEYS = ['ordinals', 'entries', 'ordinal', 'id', 'id:1', 'id:0', 'name', 'name:1', 'name:0', 'bitmaps', 'texts'];

/** The grams of a document's searched name (`n:<gram>`) and result (`r:<gram>`), as its template's keys end. */
function gramsOf(document: StoredDocument): string[] {
  return [
    ...[...grams(searchText(document.name))].map((gram) => `n:${gram}`),
    ...[...grams(searchText(document.result))].map((gram) => `r:${gram}`),
  ];
}

/** A document's entry in the hash of entries: what a search reads of it to filter and order its matches. */
function entryOf(document: StoredDocument): string {
  return JSON.stringify([document.id, document.favorite ? 1 : 0, document.name, nameSortKey(document.name)] satisfies Entry);
}

/** A document's member of the sorted sets by name. */
function nameMember(document: StoredDocument): string {
  return `${nameSortKey(document.name)}\u0000${String(document.id).padStart(16, '0')}`;
}

/**
 * The distinct runs of 1, 2 and 3 UTF-16 code units of `text`: a search's needle (in code units, as
 * `includes` compares) is in a text only if each of its runs is. A run holding half of a surrogate pair
 * reaches Redis as U+FFFD, which only adds candidates, all checked.
 */
function grams(text: string): Set<string> {
  const found = new Set<string>();
  for (let start = 0; start < text.length; start += 1) {
    for (let length = 1; length <= 3 && start + length <= text.length; length += 1) found.add(text.slice(start, start + length));
  }
  return found;
}

/** Half of a surrogate pair, alone, or U+FFFD: what Redis, given UTF-8, cannot tell apart. */
const UNSURE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/;

/** The grams a search looks up: the needle itself up to 3 code units, else (some of) its runs of 3. */
function needleGrams(needle: string): string[] {
  if (needle.length <= 3) return [needle];
  const found = new Set<string>();
  for (let start = 0; start + 3 <= needle.length && found.size < NEEDLE_GRAMS; start += 1)
    found.add(needle.slice(start, start + 3));
  return [...found];
}

/** Matches in ascending order of `sortBy`: by id, or by name (its `nameSortKey`, code point by code point) then id. */
function sorted<T extends { id: number; nameKey: string }>(matched: T[], sortBy: DocumentQuery['sortBy']): T[] {
  if (sortBy === 'id') return matched.sort((a, b) => a.id - b.id);
  return matched.sort((a, b) => compareCodePoints(a.nameKey, b.nameKey) || a.id - b.id);
}

/** The page `query` asks for of matches in ascending order (`desc`: the same order reversed). */
function pageOf<T>(ascending: T[], query: DocumentQuery): T[] {
  const total = ascending.length;
  const start = Math.min((query.page - 1) * query.perPage, total);
  const end = Math.min(start + query.perPage, total);
  return query.sort === 'desc' ? ascending.slice(total - end, total - start).reverse() : ascending.slice(start, end);
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
