import { randomUUID } from 'node:crypto';
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
  isWordNeedle,
  nameSortKey,
  searchedWords,
  searchText,
} from '../../records/stored-document.js';
import { AppendOnlyIndex } from '../shared/append-only-index.js';
import { StoreGuard, storeClosed } from '../shared/guard.js';
import type { KeyvKvStore } from '../shared/keyv-kv-store.js';
import { LeaseQueue, withLease } from '../shared/lease.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { RedisEvalClient } from './counters.js';
import {
  ADD_POSTINGS,
  FILL,
  FILL_READ,
  KEEP_WORDS,
  WORD_KEYS,
  WORD_MATCHES,
  WORD_VOCABULARIES,
  nameWords,
  resultWords,
  wordPostings,
} from './document-words.js';

// Per owner and template (keys under `<namespace>:documents:<owner's length>:<owner>:<template>:`):
//   id, id:1, id:0        sorted sets of the ids (score: the id) of all documents, the favorites, the others
//   name, name:1, name:0  the same by name: every score 0, members `nameSortKey(name)` NUL, the id on 16
//                         digits, so that Redis's byte order (UTF-8: code point order) is the name order
//                         with ties by id, in both directions
//   ordinals              hash id → ordinal (1, 2, … as documents arrive: the bit of a bitmap)
//   entries               hash ordinal → `[id, favorite (1|0), name, its nameSortKey]` (JSON)
//   texts                 hash ordinal → the searched result (`searchText`), which a search by result checks
//   names                 hash ordinal → the name's record (see nameRecord): its searched name, id,
//                         favorite flag and sort key, which a search by name checks and orders by
//   name-chunks           hash chunk → the records of ordinals 128 × chunk … 128 × chunk + 127, one
//                         after the other: what a search by name of a common needle scans
//   n:<gram>, r:<gram>    the ordinals whose searched name (n) or result (r) holds the run of 1, 2 or 3
//                         UTF-16 code units <gram>: a set while few, a bitmap once many
//   bitmaps               hash of the postings' keys (grams and words) that are bitmaps
//   nw:<word>, rw:<word>  the ordinals whose searched name or result has the word, and the vocabularies
//                         that a search of a needle of word characters reads: see ./document-words.ts
// Per owner: `indexed` once its documents written by older releases are in the indexes.

/** Names a chunk of `name-chunks` holds. */
const NAMES_PER_CHUNK = 128;

/**
 * Lua: writes a chunk of the names' records again from the hash of them ('' when it holds none, so that a
 * chunk never written tells a template written before the chunks were kept).
 */
const REBUILD_CHUNK = `
local function rebuildChunk(names, chunks, chunk)
  local ordinals = {}
  for ordinal = chunk * ${NAMES_PER_CHUNK}, chunk * ${NAMES_PER_CHUNK} + ${NAMES_PER_CHUNK - 1} do ordinals[#ordinals + 1] = ordinal end
  local parts = {}
  for _, record in ipairs(redis.call('HMGET', names, unpack(ordinals))) do
    if record then parts[#parts + 1] = record end
  end
  redis.call('HSET', chunks, chunk, table.concat(parts))
end
`;

/** Writes a document's record (or deletes it) and its place in every index, in one atomic step. */
const WRITE = `${REBUILD_CHUNK}${KEEP_WORDS}
-- KEYS: 1 record, 2 ordinals, 3 entries, 4 ordinal counter, 5-7 id, id:1, id:0, 8-10 name, name:1, name:0,
-- 11 the postings that are bitmaps, 12 texts, 13 names, 14 name chunks, 15-20 name-words, name-vocabulary,
-- result-words, result-vocabulary, words-to-fill, ordinal-ids, then ARGV[8] postings (grams and words) to
-- clear, then the postings to set.
-- ARGV: 1 put|delete, 2 id, 3 record, 4 favorite (1|0), 5 name member, 6 entry, 7 former name member
-- ('' for none), 8 postings to clear, 9 the searched result, 10 the name's record, 11 the name's words and
-- 12 the result's (each separated by NUL)
local id = ARGV[2]
local ordinal = redis.call('HGET', KEYS[2], id)
wordsFrom(KEYS[19], KEYS[4])
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
local cleared = 20 + tonumber(ARGV[8])
if ordinal then
  local kinds = bitmaps(21, cleared)
  for i = 21, cleared do
    if kinds[i] then redis.call('SETBIT', KEYS[i], ordinal, 0) else redis.call('SREM', KEYS[i], ordinal) end
  end
end
if ARGV[1] == 'delete' then
  redis.call('ZREM', KEYS[5], id)
  if ordinal then
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], ordinal)
    redis.call('HDEL', KEYS[12], ordinal)
    redis.call('HDEL', KEYS[13], ordinal)
    keepId(KEYS[20], ordinal, 0, 0)
    rebuildChunk(KEYS[13], KEYS[14], math.floor(ordinal / ${NAMES_PER_CHUNK}))
  end
  return 1
end
if not ordinal then
  ordinal = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[2], id, ordinal)
end
redis.call('HSET', KEYS[3], ordinal, ARGV[6])
redis.call('HSET', KEYS[12], ordinal, ARGV[9])
redis.call('HSET', KEYS[13], ordinal, ARGV[10])
rebuildChunk(KEYS[13], KEYS[14], math.floor(ordinal / ${NAMES_PER_CHUNK}))
local favorite = ARGV[4] == '1'
redis.call('ZADD', KEYS[5], id, id)
redis.call('ZADD', favorite and KEYS[6] or KEYS[7], id, id)
redis.call('ZADD', KEYS[8], 0, ARGV[5])
redis.call('ZADD', favorite and KEYS[9] or KEYS[10], 0, ARGV[5])
addWords(KEYS[15], KEYS[16], ARGV[11])
addWords(KEYS[17], KEYS[18], ARGV[12])
keepId(KEYS[20], ordinal, id, ARGV[4])
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
 * is indexed already; each posting's new ordinals in one command.
 */
const INDEX = `${REBUILD_CHUNK}${KEEP_WORDS}${ADD_POSTINGS}
-- KEYS: 1 ordinals, 2 entries, 3 ordinal counter, 4-6 id, id:1, id:0, 7-9 name, name:1, name:0, 10 the
-- postings that are bitmaps, 11 texts, 12 names, 13 name chunks, 14-19 name-words, name-vocabulary,
-- result-words, result-vocabulary, words-to-fill, ordinal-ids, then the postings. ARGV: per document, its
-- id, favorite (1|0), name member, entry, the numbers of its postings among KEYS[20…] (1 for KEYS[20])
-- separated by commas, its searched result, its name's record, its name's words and its result's (each
-- separated by NUL).
wordsFrom(KEYS[18], KEYS[3])
local postings = {}
local chunks = {}
for first = 1, #ARGV, 9 do
  local id = ARGV[first]
  if not redis.call('HGET', KEYS[1], id) then
    local ordinal = redis.call('INCR', KEYS[3])
    redis.call('HSET', KEYS[1], id, ordinal)
    redis.call('HSET', KEYS[2], ordinal, ARGV[first + 3])
    redis.call('HSET', KEYS[11], ordinal, ARGV[first + 5])
    redis.call('HSET', KEYS[12], ordinal, ARGV[first + 6])
    chunks[math.floor(ordinal / ${NAMES_PER_CHUNK})] = true
    local favorite = ARGV[first + 1] == '1'
    redis.call('ZADD', KEYS[4], id, id)
    redis.call('ZADD', favorite and KEYS[5] or KEYS[6], id, id)
    redis.call('ZADD', KEYS[7], 0, ARGV[first + 2])
    redis.call('ZADD', favorite and KEYS[8] or KEYS[9], 0, ARGV[first + 2])
    for number in string.gmatch(ARGV[first + 4], '%d+') do
      local key = KEYS[19 + tonumber(number)]
      postings[key] = postings[key] or {}
      table.insert(postings[key], ordinal)
    end
    addWords(KEYS[14], KEYS[15], ARGV[first + 7])
    addWords(KEYS[16], KEYS[17], ARGV[first + 8])
    keepId(KEYS[19], ordinal, id, ARGV[first + 1])
  end
end
addPostings(postings, KEYS[10], KEYS[3])
for chunk in pairs(chunks) do rebuildChunk(KEYS[12], KEYS[13], chunk) end
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

/**
 * A function of the scripts that read bitmaps: the set bits of each value of a byte, so that a byte of a
 * bitmap costs a look-up, not eight tests.
 */
const BYTE_POSITIONS = `
local function bytePositions()
  local positions = {}
  for value = 0, 255 do
    local set = {}
    for j = 0, 7 do
      if bit.band(value, bit.rshift(128, j)) ~= 0 then set[#set + 1] = j end
    end
    positions[value] = set
  end
  return positions
end
`;

/**
 * The matches of a search among part of the owner's documents of a template: the documents that hold every
 * gram of KEYS[3…] (sets, or bitmaps by ordinal), each checked on its searched text (hash KEYS[2]: names or
 * results) for the needle, byte for byte (UTF-8 holds as code points do), and on the favorite filter; or
 * the documents of one bitmap of matches that the words gave (see {@link WORD_MATCHES}), checked on the
 * favorite filter only. Where every gram is a bitmap, the call reads their bytes from ARGV[3] on, until it
 * has some ARGV[4] candidates (so that no call holds Redis long, however many documents hold the needle),
 * and answers where the next call goes on (-1: done); where one is a set, which holds few, the call reads
 * all its candidates.
 */
const MATCHES = `${BYTE_POSITIONS}
-- KEYS: 1 entries, 2 searched texts, then the grams. ARGV: 1 the needle ('': the process checks each entry),
-- 2 favorite filter ('', 1 or 0), 3 first byte, 4 candidates a call, 5 what the candidates are: name (a
-- document without a searched name is for the process to check: older releases did not keep them), result,
-- or word (matches, from the words: no text is read); or word-id, matches whose ids KEYS[1] holds packed
-- (ordinal-ids, see ./document-words.ts) instead of their entries.
-- Answers the next byte, then the entry of each match, '?' before it when the process is to check it (or
-- for word-id, the id of each match).
local sets, bitmaps = {}, {}
for i = 3, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'none' then return { -1 } end
  if kind == 'set' then sets[#sets + 1] = KEYS[i] else bitmaps[#bitmaps + 1] = KEYS[i] end
end
local ordinals = {}
local next = -1
if #sets > 0 then
  for _, ordinal in ipairs(redis.call('SINTER', unpack(sets))) do
    local all = true
    for _, bitmap in ipairs(bitmaps) do
      if redis.call('GETBIT', bitmap, ordinal) == 0 then all = false break end
    end
    if all then ordinals[#ordinals + 1] = ordinal end
  end
else
  local lengths = {}
  for n, bitmap in ipairs(bitmaps) do lengths[n] = redis.call('STRLEN', bitmap) end
  local length = math.min(unpack(lengths))
  local byte = tonumber(ARGV[3])
  local most = tonumber(ARGV[4])
  local positions = bytePositions()
  while byte < length and #ordinals < most do
    local last = math.min(byte + 255, length - 1)
    local chunks = {}
    for n, bitmap in ipairs(bitmaps) do chunks[n] = { string.byte(redis.call('GETRANGE', bitmap, byte, last), 1, -1) } end
    local first = chunks[1]
    for i = 1, last - byte + 1 do
      local bits = first[i]
      for n = 2, #chunks do
        if bits == 0 then break end
        bits = bit.band(bits, chunks[n][i])
      end
      if bits ~= 0 then
        local base = (byte + i - 1) * 8
        for _, j in ipairs(positions[bits]) do ordinals[#ordinals + 1] = base + j end
      end
    end
    byte = last + 1
  end
  if byte < length then next = byte end
end
local found = { next }
if #ordinals == 0 then return found end
local kind = ARGV[5]
if kind == 'word-id' then
  -- One range of the packed ids (the ordinals come in order), rather than an entry each.
  local first = ordinals[1]
  local packed = redis.call('GETRANGE', KEYS[1], first * 8, ordinals[#ordinals] * 8 + 7)
  for _, ordinal in ipairs(ordinals) do
    local at = (ordinal - first) * 8
    if at + 8 <= #packed then
      local flag, id = struct.unpack('>BI7', packed, at + 1)
      if id > 0 and (ARGV[2] == '' or flag == tonumber(ARGV[2])) then found[#found + 1] = id end
    end
  end
  return found
end
local entries = redis.call('HMGET', KEYS[1], unpack(ordinals))
local texts = kind ~= 'word' and ARGV[1] ~= '' and redis.call('HMGET', KEYS[2], unpack(ordinals))
for n = 1, #ordinals do
  local entry = entries[n]
  if entry and (ARGV[2] == '' or string.match(entry, '^%[%d+,(%d)') == ARGV[2]) then
    if kind == 'word' then found[#found + 1] = entry
    elseif not texts then found[#found + 1] = '?' .. entry
    elseif not texts[n] then
      if kind == 'name' then found[#found + 1] = '?' .. entry end
    else
      -- A name's record holds its searched name up to its first NUL.
      local hit = string.find(texts[n], ARGV[1], 1, true)
      if hit and (kind == 'result' or hit + #ARGV[1] <= string.find(texts[n], '\\0', 1, true)) then found[#found + 1] = entry end
    end
  end
end
return found`;

/**
 * A search by name that reads the owner's searched names of the template in chunks, rather than the
 * documents its grams find: where every gram of the needle is in a sixteenth of the documents or more (a
 * common needle, whose candidates would each cost a read of their entry and their name, some 25 times what
 * a name scanned costs), and every chunk is kept. Each call scans up to ARGV[4] chunks from ARGV[3].
 */
const SCAN_NAMES = `
-- KEYS: 1 name chunks, 2 ordinal counter, then the grams. ARGV: 1 the needle (neither NUL, 1 nor 2 in it),
-- 2 favorite filter ('', 1 or 0), 3 first chunk, 4 chunks a call, 5 id|name.
-- Answers { -2 } when the grams are to be read instead; else the next chunk (-1: done), then per match its
-- id (by id), or its id and sort key (by name).
local last = math.floor(tonumber(redis.call('GET', KEYS[2]) or '0') / ${NAMES_PER_CHUNK})
local first = tonumber(ARGV[3])
if first == 0 then
  local fewest
  for i = 3, #KEYS do
    local kind = redis.call('TYPE', KEYS[i]).ok
    if kind == 'none' then return { -1 } end
    if kind == 'set' then return { -2 } end
    local count = redis.call('BITCOUNT', KEYS[i])
    if not fewest or count < fewest then fewest = count end
  end
  if fewest * 16 < (last + 1) * ${NAMES_PER_CHUNK} then return { -2 } end
end
local upto = math.min(last, first + tonumber(ARGV[4]) - 1)
local numbers = {}
for chunk = first, upto do numbers[#numbers + 1] = chunk end
local chunks = redis.call('HMGET', KEYS[1], unpack(numbers))
local needle, favorite = ARGV[1], ARGV[2]
local found = { upto < last and upto + 1 or -1 }
for n = 1, #numbers do
  local chunk = chunks[n]
  if not chunk then return { -2 } end
  local from = 1
  while true do
    local hit = string.find(chunk, needle, from, true)
    if not hit then break end
    local stop = string.find(chunk, '\\0', hit, true)
    if not stop then break end
    -- In a name (2 after its NUL): its id, favorite flag and sort key follow.
    local id, flag, key, after
    if string.byte(chunk, stop + 1) == 2 then id, flag, key, after = string.match(chunk, '^(%d+),(%d),([^%z]*)%z()', stop + 2) end
    if id then
      if favorite == '' or flag == favorite then
        found[#found + 1] = tonumber(id)
        if ARGV[5] == 'name' then found[#found + 1] = key end
      end
      from = after
    else
      from = stop + 1
    end
  end
end
return found`;

/**
 * The page of a search in the order of names whose matches are the set bits of one bitmap (the words'):
 * the listing by name (of the favorite filter's documents) walked from the end nearer the page, each
 * document kept when it is a match, until the page is full; the matches' number (under a favorite filter,
 * those of `ordinal-ids` with its flag), exact. A walk reads the listing's documents between its end and
 * the page; sorting the matches reads each match's entry. Where the page lies is told by a sample of the
 * matches (their ranks in the listing): the walk is taken when the sample has it read no more documents
 * than there are matches, and given up (for the sort) should it read that many. A document of the walk's
 * first batch costs its ordinal (a field of `ordinals`) and its bit; past it, the walk reads the matches'
 * ids from `ordinal-ids` once and checks each document by its id, for a fraction of that.
 */
const NAME_WALK = `${BYTE_POSITIONS}
-- KEYS: 1 the listing by name (name, name:1 or name:0), 2 ordinals, 3 the matches' bitmap, 4 ordinal-ids,
-- 5 names. ARGV: 1 favorite filter ('', 1 or 0), 2 the page's first rank, 3 its size, 4 asc|desc, 5 the
-- records' key prefix. Answers { -1 } when the matches are to be sorted instead, else their number, then
-- the page's records, in order.
local bitmap = redis.call('GET', KEYS[3]) or ''
local flag = tonumber(ARGV[1])
local packed = flag and redis.call('GET', KEYS[4]) or ''
-- The matches' ordinals, in order.
local positions = bytePositions()
local ordinals = {}
for i = 1, #bitmap do
  local bits = string.byte(bitmap, i)
  if bits ~= 0 then
    local base = (i - 1) * 8
    for _, j in ipairs(positions[bits]) do
      if not flag or string.byte(packed, (base + j) * 8 + 1) == flag then ordinals[#ordinals + 1] = base + j end
    end
  end
end
local total = #ordinals
local answer = { total }
local first = tonumber(ARGV[2])
if first >= total then return answer end
local last = math.min(first + tonumber(ARGV[3]), total)
-- The matches to find from the walk's end, the first skip of them before the page.
local reversed = false
local want, skip = last, first
if total - first < last then
  reversed = true
  want, skip = total - first, total - last
end
local walkDesc = (ARGV[4] == 'desc') ~= reversed
-- The ranks from the walk's end of some matches spread through them (by ordinal): the rank of the first
-- of them at or past the page's share of the matches is about where the walk ends.
local samples = math.min(32, total)
local fields = {}
for k = 1, samples do fields[k] = ordinals[math.floor((k - 0.5) * total / samples) + 1] end
local ranks = {}
local UNESCAPED = { ['\\1'] = '\\0', ['\\2'] = '\\1', ['\\3'] = '\\2' }
for _, record in ipairs(redis.call('HMGET', KEYS[5], unpack(fields))) do
  local id, key
  if record then id, key = string.match(record, '%z\\2(%d+),%d,([^%z]*)%z$') end
  if id then
    key = string.gsub(key, '\\1([\\1-\\3])', UNESCAPED)
    local member = key .. '\\0' .. string.rep('0', 16 - #id) .. id
    local rank = redis.call(walkDesc and 'ZREVRANK' or 'ZRANK', KEYS[1], member)
    if rank then ranks[#ranks + 1] = rank end
  end
end
if #ranks == 0 then return { -1 } end
table.sort(ranks)
local reach = ranks[math.min(#ranks, math.ceil(want * #ranks / total))] + 1
if reach > total then return { -1 } end
-- Past its first batch the walk checks a document by its id (7 bytes, as ordinal-ids holds it) among the
-- matches', which cost a fraction of what its ordinal's field does.
local ids
local found, seen, rank, batch = {}, 0, 0, 128
while seen < want do
  if rank >= total then return { -1 } end
  if rank > 0 and not ids then
    ids = {}
    if not flag then packed = redis.call('GET', KEYS[4]) or '' end
    for _, ordinal in ipairs(ordinals) do ids[string.sub(packed, ordinal * 8 + 2, ordinal * 8 + 8)] = true end
  end
  local members
  if walkDesc then members = redis.call('ZRANGE', KEYS[1], rank, rank + batch - 1, 'REV')
  else members = redis.call('ZRANGE', KEYS[1], rank, rank + batch - 1) end
  if #members == 0 then break end
  rank = rank + #members
  local walked = {}
  for n, member in ipairs(members) do walked[n] = tonumber(string.sub(member, -16)) end
  local held = {}
  if ids then
    for n, id in ipairs(walked) do held[n] = ids[struct.pack('>I7', id)] end
  else
    for n, value in ipairs(redis.call('HMGET', KEYS[2], unpack(walked))) do
      local ordinal = tonumber(value)
      local bits = ordinal and string.byte(bitmap, math.floor(ordinal / 8) + 1)
      held[n] = bits and bit.band(bits, bit.rshift(128, ordinal % 8)) ~= 0
    end
  end
  for n = 1, #walked do
    if held[n] then
      seen = seen + 1
      if seen > skip then found[#found + 1] = walked[n] end
      if seen == want then break end
    end
  end
  batch = math.min(math.max(reach - rank, 128), 1024)
end
for n = reversed and #found or 1, reversed and 1 or #found, reversed and -1 or 1 do
  answer[#answer + 1] = redis.call('GET', ARGV[5] .. found[n]) or ''
end
return answer`;

/** Chunks of searched names a search reads per call (some 8,000 names). */
const CHUNKS_PER_CALL = 64;

/** Deletes a key. */
const DROP = `redis.call('DEL', KEYS[1]) return 0`;
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
const CHECKED_PER_CALL = 2000;
/**
 * Matches a search in the order of ids reads per call from the words: a match read as its packed id costs
 * Redis about a microsecond, one checked on its text ten or more, so such a call holds Redis no longer than
 * one of {@link CHECKED_PER_CALL}, in fewer round trips (each a wait for a core on a busy machine).
 */
const IDS_PER_CALL = 16_000;
/** Grams a search looks up at most: enough to narrow it down; the match is checked on the text anyway. */
const NEEDLE_GRAMS = 32;
/** Documents a step of the fill of words reads and writes. */
const FILL_BATCH = 200;
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

/** What {@link RedisDocumentStore}'s way of a search by words answers for a needle whose grams are to be read. */
const RARE = Symbol('a rare needle');

/** A match of a search: what orders it. */
type Match = { id: number; nameKey: string };

/**
 * What a search in the order of names walks the listing for: the owner and query, and whether the words'
 * matches are sorted when the walk is not taken (else another way is tried first).
 */
type Walk = { owner: string; query: DocumentQuery; sortAfter: boolean };

/**
 * Documents on Redis: each a record as Keyv writes it (`doc:<id>`, the format older releases wrote, read
 * through the backend's values too), and per owner and template, indexes in Redis that answer every list query of
 * docs/contract.md §3 with work that grows with the page, or with the documents a search finds, never with
 * the owner's documents; this process keeps none of them. A page without a search is one script (its range
 * of a sorted set and the page's records); a search intersects the sets or bitmaps of the needle's grams
 * and checks each document found with `searchText`, so that what matches is exactly what the contract says;
 * a common needle of letters, marks and digits is found from the words that hold it instead, with no text
 * read (./document-words.ts), whose fill in a store written before them starts at the first search.
 * Updates and deletes run under the document's lease (lib/stores/shared/lease.ts); each write changes the record and every index in one
 * atomic script. An owner's documents written by an older release (records and a log of ids, no indexes)
 * are indexed once, before its first call.
 */
export class RedisDocumentStore implements DocumentStore {
  /** Updates and deletes of one document, under its lease (`documents:lease:<id>` of the counters). */
  private readonly writes: LeaseQueue;
  /** Owners whose documents are indexed (never undone). */
  private readonly indexedOwners = new QuickLRU<string, true>({ maxSize: KNOWN_OWNERS });
  /** Fills of words under way in this process, by the prefix of their template's keys. */
  private readonly fills = new Map<string, Promise<void>>();
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
    const byName = query.searchBy === 'name';
    const grams = needleGrams(query.search).map((gram) => `${keys}${byName ? 'n' : 'r'}:${gram}`);
    const search = query.search;
    // Redis checks a text byte for byte; a needle it cannot tell apart is checked here (on the records, by
    // result), and so is one with a character that a name's record holds after the name.
    const checked = UNSURE.test(search) || (byName && /[\0\x01\x02]/.test(search)) ? '' : search;
    const favorite = query.favorite === undefined ? '' : query.favorite ? '1' : '0';
    const fromWords = (walk?: Walk) =>
      isWordNeedle(search) ? this.wordMatches(keys, grams, search, byName, favorite, query.sortBy, walk) : undefined;
    const scanned = () => (byName && checked !== '' ? this.scanNames(keys, grams, search, favorite, query.sortBy) : undefined);
    // In the order of ids the words give a match's id from a range of ids. In the order of names, the words'
    // matches give the page by a walk of the listing by name when its rule takes it; else a match costs its
    // entry, which scanning the names (when its rule takes a common needle) gives for less.
    const walked = () => fromWords({ owner, query, sortAfter: !byName });
    for (const way of query.sortBy === 'id' ? [fromWords, scanned] : [walked, scanned, fromWords]) {
      const matched = await way();
      // A rare needle: neither the words nor a scan would take it.
      if (matched === RARE) break;
      if (Array.isArray(matched)) return this.pageOfMatches(owner, matched, query);
      if (matched !== undefined) return matched;
    }
    const { matched, unsure } = await this.matches(
      keys,
      grams,
      byName ? 'name' : 'result',
      checked,
      search,
      favorite,
      query.sortBy,
    );
    return this.pageOfMatches(
      owner,
      unsure.length === 0 ? matched : [...matched, ...(await this.resultsHolding(owner, unsure, search))],
      query,
    );
  }

  /**
   * The documents of `postings` that {@link MATCHES} finds (`kind`: checked on their names or results for
   * `checked`, or the matches the words gave), a call at a time; a name it leaves to the process is checked
   * here for `search`, and a result is answered in `unsure`.
   */
  private async matches(
    keys: string,
    postings: string[],
    kind: 'name' | 'result' | 'word' | 'word-id',
    checked: string,
    search: string,
    favorite: string,
    sortBy: DocumentQuery['sortBy'],
  ): Promise<{ matched: Match[]; unsure: Match[] }> {
    const matched: Match[] = [];
    const unsure: Match[] = [];
    for (let next = 0; next !== -1;) {
      const [after, ...entries] = (await this.call(
        MATCHES,
        [keys + (kind === 'word-id' ? 'ordinal-ids' : 'entries'), keys + (kind === 'name' ? 'names' : 'texts'), ...postings],
        [checked, favorite, String(next), String(kind === 'word-id' ? IDS_PER_CALL : CHECKED_PER_CALL), kind],
      )) as [number, ...(string | number)[]];
      next = Number(after);
      for (const entry of entries) {
        if (typeof entry === 'number') {
          matched.push({ id: entry, nameKey: '' });
        } else if (entry.startsWith('?')) {
          const [id, , name, nameKey] = JSON.parse(entry.slice(1)) as Entry;
          if (kind === 'result') unsure.push({ id, nameKey });
          else if (searchText(name).includes(search)) matched.push({ id, nameKey });
        } else if (sortBy === 'id') {
          matched.push({ id: Number(entry.slice(1, entry.indexOf(','))), nameKey: '' });
        } else {
          const [id, , , nameKey] = JSON.parse(entry) as Entry;
          matched.push({ id, nameKey });
        }
      }
    }
    return { matched, unsure };
  }

  /**
   * The matches of a needle of word characters read from the words (see {@link WORD_MATCHES}); {@link RARE}
   * when its grams are to be read, a gram being a set; `undefined` when its postings would cost more than
   * the other ways, or when words are not kept for every document yet (whose fill this starts). With
   * `walk`, the page in the order of names by a walk of the listing (see {@link NAME_WALK}) when its rule
   * takes it; else the matches, unless `walk.sortAfter` is false (`undefined`: they are for another way).
   */
  private async wordMatches(
    keys: string,
    grams: string[],
    search: string,
    byName: boolean,
    favorite: string,
    sortBy: DocumentQuery['sortBy'],
    walk?: Walk,
  ): Promise<Match[] | DocumentRows | typeof RARE | undefined> {
    const union = `${keys}union:${randomUUID()}`;
    const [state, bitmap, made] = (await this.call(
      WORD_MATCHES,
      [
        keys + (byName ? 'name-vocabulary' : 'result-vocabulary'),
        keys + 'bitmaps',
        keys + 'ordinal',
        keys + 'words-to-fill',
        union,
        ...grams,
      ],
      [search, keys + (byName ? 'nw:' : 'rw:')],
    )) as [number, string?, number?];
    if (Number(state) === -3) this.fillWords(keys);
    if (Number(state) === -4) return RARE;
    if (Number(state) < 0) return undefined;
    if (Number(state) === 0) return [];
    try {
      if (walk !== undefined) {
        const page = await this.walkNames(keys, bitmap!, favorite, walk);
        if (page !== undefined || !walk.sortAfter) return page;
      }
      return (await this.matches(keys, [bitmap!], sortBy === 'id' ? 'word-id' : 'word', '', search, favorite, sortBy)).matched;
    } finally {
      if (Number(made) === 1) await this.call(DROP, [union], []);
    }
  }

  /** The page of the matches of `bitmap` in the order of names by {@link NAME_WALK}, or `undefined` when they are to be sorted. */
  private async walkNames(
    keys: string,
    bitmap: string,
    favorite: string,
    { owner, query }: Walk,
  ): Promise<DocumentRows | undefined> {
    const [total, ...records] = (await this.call(
      NAME_WALK,
      [`${keys}name${favorite === '' ? '' : `:${favorite}`}`, keys + 'ordinals', bitmap, keys + 'ordinal-ids', keys + 'names'],
      [favorite, String((query.page - 1) * query.perPage), String(query.perPage), query.sort, this.recordPrefix],
    )) as [number, ...string[]];
    if (Number(total) === -1) return undefined;
    return { documents: records.map((record) => this.parse(record, owner)).filter(isDefined), total: Number(total) };
  }

  /**
   * Fills, in the background, the words of the template whose keys start with `keys` (documents written
   * before the words were kept), unless this process is at it already. Other processes may fill it at the
   * same time: each step reads a batch and writes it only if no one wrote it first, so one wins each step.
   * A step that fails (a closed store) ends it; the next search starts it again where it stopped.
   */
  private fillWords(keys: string): void {
    if (this.fills.has(keys)) return;
    this.fills.set(
      keys,
      this.fill(keys)
        .catch(() => {})
        .finally(() => this.fills.delete(keys)),
    );
  }

  /** Fills the template's words a step of {@link FILL_BATCH} documents at a time, down from the last ordinal to fill. */
  private async fill(keys: string): Promise<void> {
    for (;;) {
      const [from, ...read] = (await this.call(
        FILL_READ,
        [keys + 'words-to-fill', keys + 'ordinal', keys + 'entries', keys + 'texts'],
        [String(FILL_BATCH)],
      )) as [number, ...(number | string)[]];
      if (Number(from) === 0) return;
      const documents: { ordinal: string; entry: string; text: string; names: string[]; results: string[] }[] = [];
      for (let n = 0; n < read.length; n += 3) {
        const entry = String(read[n + 1]);
        const text = String(read[n + 2]);
        const [, , name] = JSON.parse(entry) as Entry;
        documents.push({ ordinal: String(read[n]), entry, text, names: nameWords({ name }), results: searchedWords(text) });
      }
      const { numbers, postings } = numbered(documents.map(({ names, results }) => wordPostings(names, results)));
      await this.call(
        FILL,
        [
          keys + 'words-to-fill',
          keys + 'ordinal',
          keys + 'entries',
          keys + 'texts',
          keys + 'bitmaps',
          ...[...WORD_VOCABULARIES, 'ordinal-ids', ...postings].map((name) => keys + name),
        ],
        [
          String(from),
          String(Math.max(0, Number(from) - FILL_BATCH)),
          ...documents.flatMap(({ ordinal, entry, text, names, results }, n) => [
            ordinal,
            entry,
            text,
            numbers[n]!,
            names.join('\0'),
            results.join('\0'),
          ]),
        ],
      );
    }
  }

  /** The page of `matched` (all the matches of a search) that `query` asks for, with their number. */
  private async pageOfMatches(owner: string, matched: Match[], query: DocumentQuery): Promise<DocumentRows> {
    const page = pageOf(sorted(matched, query.sortBy), query);
    const records = await this.options.kv.getMany<unknown>(page.map(({ id }) => documentKey(id)));
    // A document deleted since the search is left out of the page.
    return {
      documents: records.filter((record): record is StoredDocument => isStoredDocument(record, owner)),
      total: matched.length,
    };
  }

  /**
   * The matches of a search by name read from the chunks of searched names (see {@link SCAN_NAMES}), or
   * `undefined` when the needle's grams are to be read instead (a rare needle, or chunks not kept).
   */
  private async scanNames(
    keys: string,
    grams: string[],
    search: string,
    favorite: string,
    sortBy: DocumentQuery['sortBy'],
  ): Promise<{ id: number; nameKey: string }[] | undefined> {
    const matched: { id: number; nameKey: string }[] = [];
    for (let next = 0; next !== -1;) {
      const [after, ...found] = (await this.call(
        SCAN_NAMES,
        [keys + 'name-chunks', keys + 'ordinal', ...grams],
        [search, favorite, String(next), String(CHUNKS_PER_CALL), sortBy],
      )) as [number, ...(number | string)[]];
      if (Number(after) === -2) return undefined;
      next = Number(after);
      if (sortBy === 'id') for (const id of found) matched.push({ id: Number(id), nameKey: '' });
      else for (let n = 0; n < found.length; n += 2) matched.push({ id: Number(found[n]), nameKey: String(found[n + 1]) });
    }
    return matched;
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
    const set = op === 'delete' ? [] : postingsOf(document);
    const kept = new Set(set);
    const cleared = former === undefined ? [] : postingsOf(former).filter((posting) => !kept.has(posting));
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
        nameRecord(document),
        op === 'put' ? nameWords(document).join('\0') : '',
        op === 'put' ? resultWords(document).join('\0') : '',
      ],
    );
  }

  /** Indexes `documents` (of the template whose keys start with `keys`) as they are, each unless it is already. */
  private async index(keys: string, documents: StoredDocument[]): Promise<void> {
    const { numbers, postings } = numbered(documents.map(postingsOf));
    const args = documents.flatMap((document, n) => [
      String(document.id),
      document.favorite ? '1' : '0',
      nameMember(document),
      entryOf(document),
      numbers[n]!,
      searchText(document.result),
      nameRecord(document),
      nameWords(document).join('\0'),
      resultWords(document).join('\0'),
    ]);
    await this.call(
      INDEX,
      [...INDEX_KEYS, ...postings].map((name) => keys + name),
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
const INDEX_KEYS = [
  'ordinals',
  'entries',
  'ordinal',
  'id',
  'id:1',
  'id:0',
  'name',
  'name:1',
  'name:0',
  'bitmaps',
  'texts',
  'names',
  'name-chunks',
  ...WORD_KEYS,
];

/**
 * The postings that list a document, as its template's keys end: the grams of its searched name (`n:<gram>`)
 * and result (`r:<gram>`), and their words (`nw:<word>`, `rw:<word>`).
 */
function postingsOf(document: StoredDocument): string[] {
  return [
    ...[...grams(searchText(document.name))].map((gram) => `n:${gram}`),
    ...[...grams(searchText(document.result))].map((gram) => `r:${gram}`),
    ...wordPostings(nameWords(document), resultWords(document)),
  ];
}

/**
 * Numbers the postings of documents as a script takes them after its fixed keys (1 for the first), each
 * posting once: each document's numbers, separated by commas, and the postings in the order of their numbers.
 */
function numbered(perDocument: string[][]): { numbers: string[]; postings: string[] } {
  const numbers = new Map<string, number>();
  const own = perDocument.map((postings) =>
    postings
      .map((posting) => {
        let number = numbers.get(posting);
        if (number === undefined) numbers.set(posting, (number = numbers.size + 1));
        return number;
      })
      .join(','),
  );
  return { numbers: own, postings: [...numbers.keys()] };
}

/** A document's entry in the hash of entries: what a search reads of it to filter and order its matches. */
function entryOf(document: StoredDocument): string {
  return JSON.stringify([document.id, document.favorite ? 1 : 0, document.name, nameSortKey(document.name)] satisfies Entry);
}

/**
 * A document's record in the hash of names, and in its chunk: its searched name (NUL and 2 written as 1),
 * NUL, 2, its id, favorite flag (1|0) and name sort key (NUL, 1 and 2 written as 1 and one more: the same
 * order) separated by commas, and NUL. NUL ends the name, and 2 after it tells that a NUL ends a name.
 */
function nameRecord(document: StoredDocument): string {
  const name = searchText(document.name).replace(/[\0\x02]/g, '\x01');
  const key = nameSortKey(document.name).replace(/[\0-\x02]/g, (char) => `\x01${String.fromCharCode(char.charCodeAt(0) + 1)}`);
  return `${name}\0\x02${document.id},${document.favorite ? 1 : 0},${key}\0`;
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
  // Keys below the surrogates compare by code point as JavaScript compares strings, many times faster.
  const compare = matched.some(({ nameKey }) => SURROGATES_AND_BEYOND.test(nameKey))
    ? compareCodePoints
    : (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return matched.sort((a, b) => compare(a.nameKey, b.nameKey) || a.id - b.id);
}

/** A UTF-16 code unit that JavaScript's order of strings puts elsewhere than the order of code points does. */
const SURROGATES_AND_BEYOND = /[\uD800-\uFFFF]/;

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
