import type { StoredDocument } from '../../ports/document-store.js';
import { searchedWords, searchText } from '../../records/stored-document.js';

// The words of the documents' searched names and results on Redis (docs/storage.md, "Documents"). A needle
// made of letters, marks and digits only is in a text if and only if it is a part of one of the text's
// words (lib/records/stored-document.ts), so the documents that hold it are those listed under the words
// of the template's vocabulary that hold it: exact, with no text read. Per owner and template (the keys
// of lib/stores/redis/documents.ts):
//   name-words, result-words            sets of the words that names (results) have had: never emptied, so
//                                       that a write tells a new word in one command
//   name-vocabulary, result-vocabulary  the same words, each followed by NUL, in one string: what a search
//                                       reads through with `string.find`
//   nw:<word>, rw:<word>                the ordinals whose name (result) has the word: a set while few, a
//                                       bitmap once many, as the grams (and in the same hash of bitmaps)
//   words-to-fill                       the ordinals 1 … this one were written before the words were kept
//                                       and are not filled yet (0: every document's words are kept)
//   ordinal-ids                         per ordinal 8 bytes from byte 8 × ordinal on: the favorite flag,
//                                       then the document's id on 7 bytes, big-endian (0: none), so that
//                                       a search in the order of ids reads its matches' ids and flags in one
//                                       range, not an entry each
//   union:<random>                      a search's matches, when more than one word holds its needle (a
//                                       minute at the most)

/** The keys of the template's vocabularies: the name's set and string, then the result's. */
export const WORD_VOCABULARIES = ['name-words', 'name-vocabulary', 'result-words', 'result-vocabulary'];

/** The keys of the template's words that the scripts of writes take, in their order. */
export const WORD_KEYS = [...WORD_VOCABULARIES, 'words-to-fill', 'ordinal-ids'];

/** The postings of the words of a name and of a result (`nw:<word>`, `rw:<word>`), as their template's keys end. */
export function wordPostings(names: string[], results: string[]): string[] {
  return [...names.map((word) => `nw:${word}`), ...results.map((word) => `rw:${word}`)];
}

/** The words of a document's searched name. */
export function nameWords(document: Pick<StoredDocument, 'name'>): string[] {
  return searchedWords(searchText(document.name));
}

/** The words of a document's searched result. */
export function resultWords(document: Pick<StoredDocument, 'result'>): string[] {
  return searchedWords(searchText(document.result));
}

/**
 * Lua: the words' bookkeeping of the scripts that give documents ordinals. `wordsFrom` marks, before the
 * first ordinal a script hands out in a template, that the ordinals before it are to be filled (none in a
 * new template); `addWords` puts a document's words (NUL-separated) into a field's vocabulary; `keepId`
 * writes an ordinal's id and favorite flag (1|0) into `ordinal-ids` (id 0: none).
 */
export const KEEP_WORDS = `
local function keepId(ids, ordinal, id, favorite)
  redis.call('SETRANGE', ids, tonumber(ordinal) * 8, struct.pack('>BI7', tonumber(favorite), tonumber(id)))
end
local function wordsFrom(toFill, counter)
  if redis.call('EXISTS', toFill) == 0 then redis.call('SET', toFill, redis.call('GET', counter) or '0') end
end
local function addWords(set, vocabulary, words)
  for word in string.gmatch(words, '[^%z]+') do
    if redis.call('SADD', set, word) == 1 then redis.call('APPEND', vocabulary, word .. '\\0') end
  end
end
`;

/**
 * Lua: `addPostings(postings, bitmaps, counter)` adds ordinals to postings (grams or words), each key's in
 * a few commands: `postings` maps a key to its new ordinals, `bitmaps` is the hash of the postings that are
 * bitmaps, `counter` the ordinals handed out. A set becomes a bitmap once it would take more room than one
 * (see the documents' WRITE). `setBits` sets bits of a bitmap, a thousand a command.
 */
export const ADD_POSTINGS = `
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
local function addPostings(postings, bitmaps, counter)
  local most = math.max(512, tonumber(redis.call('GET', counter) or '0') / 512)
  for key, ordinals in pairs(postings) do
    if redis.call('HEXISTS', bitmaps, key) == 1 then
      setBits(key, ordinals)
    else
      for start = 1, #ordinals, 1000 do redis.call('SADD', key, unpack(ordinals, start, math.min(start + 999, #ordinals))) end
      if redis.call('SCARD', key) > most then
        local members = redis.call('SMEMBERS', key)
        redis.call('DEL', key)
        setBits(key, members)
        redis.call('HSET', bitmaps, key, 1)
      end
    end
  end
end
`;

/**
 * The matches of a search of a needle made of word characters, from the words of the template's vocabulary
 * that hold it, when the words are kept for every document and the needle's grams do not make it rare (a
 * gram that is a set lists a few hundred documents at the most, each then checked on its text). The words'
 * postings are taken while they take less room than a bitmap of the ordinals handed out holds ordinals
 * (each word counted once more, a set by its members, a bitmap as the largest set: a sixty-fourth of its
 * bytes, which BITOP reads in Redis's C), so that reading them never costs more than reading an entry of
 * each document, less than its text. More than one posting is ORed into a bitmap of their own (KEYS[5], for
 * a minute): either way the matches are the set bits of one bitmap, paged as the grams' are.
 */
export const WORD_MATCHES = `${ADD_POSTINGS}
-- KEYS: 1 the field's vocabulary, 2 the hash of bitmaps, 3 ordinal counter, 4 words-to-fill, 5 the union to
-- make, then the needle's grams. ARGV: 1 the needle, 2 the prefix of the field's words' postings.
-- Answers { -3 } while words are to be filled, { -4 } when a gram is a set (the needle is rare: its grams'
-- documents are read), { -2 } when the postings take too much room, { 0 } when no document holds the
-- needle, else { 1, the bitmap of the matches, 1 when it is the union made }.
if redis.call('GET', KEYS[4]) ~= '0' then return { -3 } end
for i = 6, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'none' then return { 0 } end
  if kind == 'set' then return { -4 } end
end
local vocabulary = redis.call('GET', KEYS[1]) or ''
local needle = ARGV[1]
local postings = {}
local from = 1
while true do
  local hit = string.find(vocabulary, needle, from, true)
  if not hit then break end
  local start = hit
  while start > 1 and string.byte(vocabulary, start - 1) ~= 0 do start = start - 1 end
  local stop = string.find(vocabulary, '\\0', hit, true)
  postings[#postings + 1] = ARGV[2] .. string.sub(vocabulary, start, stop - 1)
  from = stop + 1
end
if #postings == 0 then return { 0 } end
local ordinals = tonumber(redis.call('GET', KEYS[3]) or '0')
local room = 0
local sets, bitmaps = {}, {}
for start = 1, #postings, 1000 do
  local last = math.min(start + 999, #postings)
  local kinds = redis.call('HMGET', KEYS[2], unpack(postings, start, last))
  for n = start, last do
    if kinds[n - start + 1] then
      bitmaps[#bitmaps + 1] = postings[n]
      room = room + 1 + ordinals / 512
    else
      sets[#sets + 1] = postings[n]
      room = room + 1 + redis.call('SCARD', postings[n])
    end
    if room >= ordinals then return { -2 } end
  end
end
if #sets == 0 and #bitmaps == 1 then return { 1, bitmaps[1], 0 } end
if #bitmaps > 0 then redis.call('BITOP', 'OR', KEYS[5], unpack(bitmaps)) end
for _, set in ipairs(sets) do setBits(KEYS[5], redis.call('SMEMBERS', set)) end
redis.call('PEXPIRE', KEYS[5], 60000)
return { 1, KEYS[5], 1 }`;

/**
 * A step of the fill of a template's words (documents written before they were kept): the next ordinals
 * to fill, down from `words-to-fill`, with each one's entry and searched result, for the process to split
 * into words. Marks first, when no script of this release has, that every ordinal handed out is to be filled.
 */
export const FILL_READ = `${KEEP_WORDS}
-- KEYS: 1 words-to-fill, 2 ordinal counter, 3 entries, 4 texts. ARGV: 1 ordinals a step.
-- Answers the ordinal the step fills down from (0: none left), then per document its ordinal, entry and result.
wordsFrom(KEYS[1], KEYS[2])
local last = tonumber(redis.call('GET', KEYS[1]))
local answer = { last }
if last == 0 then return answer end
local ordinals = {}
for ordinal = math.max(1, last - tonumber(ARGV[1]) + 1), last do ordinals[#ordinals + 1] = ordinal end
local entries = redis.call('HMGET', KEYS[3], unpack(ordinals))
local texts = redis.call('HMGET', KEYS[4], unpack(ordinals))
for n, ordinal in ipairs(ordinals) do
  if entries[n] then
    answer[#answer + 1] = ordinal
    answer[#answer + 1] = entries[n]
    answer[#answer + 1] = texts[n] or ''
  end
end
return answer`;

/**
 * Adds the words of documents read by {@link FILL_READ}, each only if its entry and result are still what
 * the step read (a document written since has had its words written with it, and one deleted has none),
 * then lowers `words-to-fill` past them; nothing when another process did the step first.
 */
export const FILL = `${KEEP_WORDS}${ADD_POSTINGS}
-- KEYS: 1 words-to-fill, 2 ordinal counter, 3 entries, 4 texts, 5 the hash of bitmaps, 6-9 name-words,
-- name-vocabulary, result-words, result-vocabulary, 10 ordinal-ids, then the postings. ARGV: 1 the ordinal
-- the step fills down from, 2 what words-to-fill is after it, then per document its ordinal, entry, result,
-- the numbers of its postings among KEYS[11…] (1 for KEYS[11]) separated by commas, its name's words and
-- its result's (each separated by NUL).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local postings = {}
for first = 3, #ARGV, 6 do
  local ordinal = ARGV[first]
  if redis.call('HGET', KEYS[3], ordinal) == ARGV[first + 1] and (redis.call('HGET', KEYS[4], ordinal) or '') == ARGV[first + 2] then
    for number in string.gmatch(ARGV[first + 3], '%d+') do
      local key = KEYS[10 + tonumber(number)]
      postings[key] = postings[key] or {}
      table.insert(postings[key], tonumber(ordinal))
    end
    addWords(KEYS[6], KEYS[7], ARGV[first + 4])
    addWords(KEYS[8], KEYS[9], ARGV[first + 5])
    keepId(KEYS[10], ordinal, string.match(ARGV[first + 1], '^%[(%d+),(%d)'))
  end
end
addPostings(postings, KEYS[5], KEYS[2])
redis.call('SET', KEYS[1], ARGV[2])
return 1`;
