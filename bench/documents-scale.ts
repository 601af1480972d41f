import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from '@keyv/redis';
import { createDossier } from '../lib/dossier.js';
import type { NewStoredDocument } from '../lib/ports/document-store.js';
import { nameTrigramRows, resultTrigramRows } from '../lib/stores/mysql/documents.js';
import { wordRows, wordsWritten } from '../lib/stores/mysql/document-words.js';
import { openBackend } from '../lib/stores/open-backend.js';
import { nameSortKey, searchText } from '../lib/records/stored-document.js';
import { documentRecord, documentValues, FIELD_COLUMNS, fieldValues, INSERTED_COLUMNS } from '../lib/stores/sql/documents.js';
import { startDossier, startRedis, type ServerProcess } from './processes.js';

// The documents-scale line of `npm run bench`: one owner with 1,000, 10,000 and 100,000 documents
// (BENCH_DOCUMENT_SIZES) on each store, two `dossier serve` processes on it; each list query is timed
// on the second process right after a create on the first (so that it cannot answer from what it read
// before), the median of BENCH_DOCUMENT_ROUNDS. The documents are written straight into the store
// (bulk SQL, or Redis's pipeline), not through HTTP.

const SIZES = (process.env.BENCH_DOCUMENT_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_DOCUMENT_ROUNDS ?? 15);
const OWNER = 'bench';

/** Searches for a common word, 50 a page: their matches grow with the documents. */
const COMMON_WORDS: Query[] = [
  {
    name: 'search by name, common word (1/4)',
    query: () => '?search=draft&per_page=50',
    // Names of documents 4k + 1, but for those of template 6 (20k + 9).
    matches: (size) => countBelow(size, 4, 1) - countBelow(size, 20, 9),
  },
  {
    name: 'search by result, common word (1/5)',
    query: () => '?search=harbor&search_by=result&per_page=50',
    // Results of documents 5k + 2, all of template 1.
    matches: (size) => countBelow(size, 5, 2),
  },
];

/** A list query measured: its query string, and the number of documents it finds at a size where it says. */
type Query = { name: string; query: (size: number) => string; matches?: (size: number) => number };

/**
 * The list queries measured: each but the searches reads a page of a listing that grows with the documents;
 * the searches of a common word find a fixed share of them (their matches grow with the documents), and the
 * last pages are those of the default listing (template 1, 9 documents in 10) as its size asks.
 */
const QUERIES: Query[] = [
  { name: 'newest first (default)', query: () => '' },
  { name: 'by name, A to Z', query: () => '?sort_by=name&sort=asc' },
  { name: 'favorites only', query: () => '?favorite=1' },
  { name: '100 a page, page 5', query: () => '?per_page=100&page=5' },
  { name: 'last page, newest first', query: (size) => `?per_page=25&page=${lastPage(size, 25)}` },
  { name: 'last page by name', query: (size) => `?sort_by=name&per_page=25&page=${lastPage(size, 25)}` },
  // The deepest page from either end (SQL stores read a page in the second half from the end).
  { name: 'middle page by name', query: (size) => `?sort_by=name&per_page=25&page=${Math.ceil(lastPage(size, 25) / 2)}` },
  { name: 'search by name (1 match)', query: () => `?search=${codeOf(500)}`, matches: () => 1 },
  { name: 'search by result (1 match)', query: () => '?search=quetzal&search_by=result', matches: () => 1 },
  { name: 'search by result (1 % match)', query: () => '?search=zephyr&search_by=result', matches: (size) => size / 100 },
  ...COMMON_WORDS,
  // The same searches in name order, whose first page is not the newest matches.
  ...COMMON_WORDS.map(({ name, query, matches }) => ({
    name: `${name.replace(/ \(.*\)$/, '')}, A to Z`,
    query: (size: number) => `${query(size)}&sort_by=name&sort=asc`,
    matches,
  })),
];

/** How many of 0 … size - 1 are `remainder` modulo `modulus`. */
function countBelow(size: number, modulus: number, remainder: number): number {
  return Math.floor((size - 1 - remainder) / modulus) + 1;
}

/** The last page of the default listing (template 1: all but documents 10k + 9) at `size` documents. */
function lastPage(size: number, perPage: number): number {
  return Math.ceil((size - countBelow(size, 10, 9)) / perPage);
}

const TOPICS = [
  'Quarterly',
  'Remote work',
  'Launch',
  'Hiring',
  'Pricing',
  'Security',
  'Roadmap',
  'Onboarding',
  'Support',
  'Design',
];
const WORDS = (
  'the a of to and in that for it with as on be by this are from or have more what when which how your team ' +
  'plan work time people product customer project goal result change clear simple measure start keep small step'
).split(' ');

/** A code of five letters and digits for each document, none a part of another's, without a prefix most share. */
function codeOf(n: number): string {
  return ((n * 2654435761) % 36 ** 5).toString(36).padStart(5, '0');
}

/**
 * Document `n` of the owner: names with a code of its own, 1 in 4 with "draft", results of ~700 characters,
 * 1 in 100 with "zephyr", 1 in 5 with "harbor".
 */
function documentNumber(n: number): NewStoredDocument {
  let state = n * 7919 + 1;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = Array.from({ length: 110 }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  if (n % 100 === 42) words.splice(20, 0, 'zephyr');
  if (n === 500) words.splice(30, 0, 'quetzal');
  if (n % 5 === 2) words.splice(60, 0, 'harbor');
  const result = words
    .join(' ')
    .replace(/(^|\. )([a-z])/g, (_all, start: string, letter: string) => start + letter.toUpperCase());
  return {
    owner: OWNER,
    name: `${TOPICS[n % TOPICS.length]} ${n % 4 === 1 ? 'draft' : 'notes'} ${codeOf(n)}`,
    template_id: n % 10 === 9 ? 6 : 1,
    prompt: 'Notes for the team',
    creativity: 0.5,
    result,
    words: words.length,
    favorite: n % 10 === 3,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/**
 * Writes documents `from` to `to` - 1 into the store at `url`: in SQL, a thousand rows a statement,
 * with the forms the queries compare as the store computes them (lib/stores/sql/documents.ts), then
 * the id counter and the counts; on Redis, through its document store (each record with its indexes,
 * lib/stores/redis/documents.ts), a thousand at once (pipelined).
 */
export async function seed(url: string, from: number, to: number): Promise<void> {
  const clock = { now: () => Date.now() };
  // A deadline for a loaded machine: the writes of a thousand documents at once queue behind each other.
  const backend = openBackend(url, { namespace: 'dossier', clock, timeoutMs: 600_000 });
  try {
    const documents = backend.documents!;
    // Makes the tables (and moves nothing: the store is new).
    await documents.list(OWNER, { searchBy: 'name', templateId: 1, sortBy: 'id', sort: 'desc', perPage: 10, page: 1 });
    const batches: NewStoredDocument[][] = [];
    for (let start = from; start < to; start += 1000) {
      batches.push(Array.from({ length: Math.min(1000, to - start) }, (_, n) => documentNumber(start + n)));
    }
    if (url.startsWith('redis')) {
      for (const batch of batches) await Promise.all(batch.map((document) => documents.create(document)));
    } else {
      await insertRows(url, batches);
    }
  } finally {
    await backend.close();
  }
}

/** MiB that Redis at `url` holds in all (`used_memory`) and in the documents' indexes (`MEMORY USAGE` of their keys). */
async function redisMemory(url: string): Promise<{ usedMiB: number; indexesMiB: number }> {
  const client = createClient({ url });
  await client.connect();
  try {
    const info = await client.info('memory');
    const used = Number(/used_memory:(\d+)/.exec(info)![1]);
    let indexes = 0;
    for await (const keys of client.scanIterator({ MATCH: 'dossier:documents:*', COUNT: 1000 }))
      for (const key of keys) indexes += (await client.memoryUsage(key, { SAMPLES: 0 })) ?? 0;
    return { usedMiB: used / 2 ** 20, indexesMiB: indexes / 2 ** 20 };
  } finally {
    await client.quit();
  }
}

/** Microseconds Redis at `url` has spent running commands (`INFO commandstats`, every command's `usec`). */
async function redisBusyMicroseconds(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const stats = await client.info('commandstats');
    return [...stats.matchAll(/,usec=(\d+),/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  } finally {
    await client.quit();
  }
}

/**
 * What each search costs Redis at `url` (ms of its time, all commands of the query together, a mean of
 * `rounds`): the time no other client is answered.
 */
async function redisSearchTimes(url: string, reader: ServerProcess, secret: string, size: number, rounds = 5): Promise<string[]> {
  const lines: string[] = [];
  for (const { name, query, matches } of QUERIES) {
    if (matches === undefined) continue;
    const before = await redisBusyMicroseconds(url);
    for (let round = 0; round < rounds; round += 1)
      await (
        await fetch(`${reader.url}/api/v1/documents${query(size)}`, { headers: { Authorization: `Bearer ${secret}` } })
      ).arrayBuffer();
    const busy = (await redisBusyMicroseconds(url)) - before;
    lines.push(`${name} ${(busy / rounds / 1000).toFixed(1)} ms`);
  }
  return lines;
}

/**
 * Rows straight into the tables, with ids after those handed out (the creates of the measures take some),
 * then the id counter and the counts.
 */
async function insertRows(url: string, batches: NewStoredDocument[][]): Promise<void> {
  const columns = `id, ${INSERTED_COLUMNS}`;
  const rowsOf = (batch: NewStoredDocument[], first: number) =>
    batch.map((document, n) => [first + n, ...documentValues(document)]);
  const count = batches.reduce((sum, batch) => sum + batch.length, 0);
  const handedOut = "SELECT COALESCE((SELECT value FROM dossier_counters WHERE name = 'documents:id'), 0) AS value";
  if (url.startsWith('sqlite://')) {
    const db = new Database(url.slice('sqlite://'.length), { timeout: 60_000 });
    try {
      const insert = db.prepare(
        `INSERT INTO dossier_documents (${columns}) VALUES (${columns
          .split(',')
          .map(() => '?')
          .join(', ')})`,
      );
      db.transaction(() => {
        const first = (db.prepare(handedOut).get() as { value: number }).value + 1;
        let id = first;
        for (const batch of batches) {
          for (const row of rowsOf(batch, id)) insert.run(...row);
          id += batch.length;
        }
        db.prepare(COUNTER_SQL.replace('$1', '?')).run(first + count - 1);
      })();
    } finally {
      db.close();
    }
  } else if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const first = Number((await client.query(handedOut)).rows[0].value) + 1;
      let id = first;
      for (const batch of batches) {
        const records = batch.map((document, n) => ({ id: id + n, ...documentRecord(document) }));
        await client.query(
          `INSERT INTO dossier_documents (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::dossier_documents, $1::json)`,
          [JSON.stringify(records)],
        );
        id += batch.length;
      }
      await client.query(COUNTER_SQL, [first + count - 1]);
      // What autovacuum does a little later: the planner's statistics of the rows written, and the
      // trigram indexes' pending entries merged (each search reads them all until then, 4 MB at most).
      await client.query('VACUUM ANALYZE dossier_documents');
    } finally {
      await client.end();
    }
  } else {
    const connection = await mysql.createConnection({ uri: url });
    try {
      const [[highest]] = (await connection.query('SELECT COALESCE(MAX(id), 0) AS id FROM dossier_documents')) as unknown as [
        [{ id: number }],
      ];
      let id = Number(highest.id) + 1;
      for (const batch of batches) {
        const rows = batch.map((document, n) => [id + n, ...fieldValues(document)]);
        await connection.query(`INSERT INTO dossier_documents (id, ${FIELD_COLUMNS}) VALUES ?`, [rows]);
        const results = batch.map((document, n) => [
          document.owner,
          document.template_id,
          id + n,
          document.favorite ? 1 : 0,
          nameSortKey(document.name),
          searchText(document.result),
        ]);
        await connection.query(
          'INSERT INTO dossier_document_results (owner, template_id, id, favorite, name_key, result_lower) VALUES ?',
          [results],
        );
        const trigrams = batch.flatMap((document, n) => nameTrigramRows(document.owner, document.name, id + n));
        await connection.query('INSERT INTO dossier_document_name_trigrams (owner, trigram, id) VALUES ?', [trigrams]);
        const resultTrigrams = batch.flatMap((document, n) =>
          resultTrigramRows(document.owner, document.template_id, searchText(document.result), id + n),
        );
        // Some 200 rows a document: a few statements a batch, each well below the server's largest packet.
        for (let start = 0; start < resultTrigrams.length; start += 50_000) {
          await connection.query('INSERT INTO dossier_document_result_trigrams (owner, template_id, trigram, id) VALUES ?', [
            resultTrigrams.slice(start, start + 50_000),
          ]);
        }
        const words = batch.flatMap((document, n) => [
          ...wordRows(document.owner, document.template_id, 'name', searchText(document.name), id + n),
          ...wordRows(document.owner, document.template_id, 'result', searchText(document.result), id + n),
        ]);
        for (let start = 0; start < words.length; start += 50_000) {
          for (const { sql, values } of wordsWritten(words.slice(start, start + 50_000))) await connection.query(sql, values);
        }
        id += batch.length;
      }
      await connection.query(
        `INSERT INTO dossier_document_counts (owner, template_id, total, favorites)
         SELECT owner, template_id, count(*), sum(favorite) FROM dossier_documents GROUP BY owner, template_id
         ON DUPLICATE KEY UPDATE total = VALUES(total), favorites = VALUES(favorites)`,
      );
      await connection.query(
        'ANALYZE TABLE dossier_documents, dossier_document_results, dossier_document_name_trigrams, dossier_document_result_trigrams, dossier_document_words, dossier_document_vocabulary',
      );
    } finally {
      await connection.end();
    }
  }
}

/** Sets the id counter of SQLite and PostgreSQL past the rows written (MySQL's AUTO_INCREMENT goes on by itself). */
const COUNTER_SQL = `INSERT INTO dossier_counters (name, value, expires_at) VALUES ('documents:id', $1, NULL)
  ON CONFLICT (name) DO UPDATE SET value = excluded.value`;

/** A store made for this run, and how to drop it. */
interface BenchStore {
  label: string;
  url: string;
  drop(): Promise<void>;
}

async function stores(notes: string[]): Promise<BenchStore[]> {
  const chosen = (process.env.BENCH_STORES ?? 'sqlite,redis,postgres,mysql').toLowerCase().split(',');
  const made: BenchStore[] = [];
  const name = `dossier_bench_${randomBytes(4).toString('hex')}`;
  if (chosen.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-documents-'));
    made.push({
      label: 'SQLite',
      url: `sqlite://${join(dir, 'documents.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    });
  }
  const postgres = process.env.BENCH_POSTGRES ?? process.env.DOSSIER_TEST_POSTGRES;
  if (postgres && chosen.includes('postgres')) {
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: postgres });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    await admin(`CREATE SCHEMA ${name}`);
    const url = new URL(postgres);
    url.searchParams.set('options', `-c search_path=${name}`);
    made.push({ label: 'PostgreSQL', url: url.href, drop: () => admin(`DROP SCHEMA ${name} CASCADE`) });
  } else if (chosen.includes('postgres'))
    notes.push('Documents on PostgreSQL skipped: set BENCH_POSTGRES (or DOSSIER_TEST_POSTGRES).');
  const mysqlUrl = process.env.BENCH_MYSQL ?? process.env.DOSSIER_TEST_MYSQL;
  if (mysqlUrl && chosen.includes('mysql')) {
    const admin = async (sql: string) => {
      const connection = await mysql.createConnection({ uri: mysqlUrl });
      await connection.query(sql).finally(() => connection.end());
    };
    await admin(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    const url = new URL(mysqlUrl);
    url.pathname = `/${name}`;
    made.push({ label: 'MySQL (MariaDB)', url: url.href, drop: () => admin(`DROP DATABASE ${name}`) });
  } else if (chosen.includes('mysql')) notes.push('Documents on MySQL skipped: set BENCH_MYSQL (or DOSSIER_TEST_MYSQL).');
  if (chosen.includes('redis')) {
    const redis = await startRedis();
    if (redis) made.push({ label: 'Redis', url: redis.url, drop: () => redis.close() });
    else notes.push('Documents on Redis skipped: no redis-server on PATH.');
  }
  return made;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** What was measured on one store at one size. */
interface Measurement {
  size: number;
  /** Median ms of each query, in the order of {@link QUERIES}. */
  ms: number[];
  /** RSS of the listing process after the queries, in MiB. */
  rssMiB: number;
}

/** Times each query on `reader` right after a create on `writer`. */
async function measureQueries(writer: ServerProcess, reader: ServerProcess, secret: string, size: number): Promise<number[]> {
  const headers = { Authorization: `Bearer ${secret}` };
  const times: number[] = [];
  for (const { query: queryOf } of QUERIES) {
    const query = queryOf(size);
    // Warm: the first answers of a fresh process run its code cold.
    for (let warm = 0; warm < 5; warm += 1)
      await (await fetch(`${reader.url}/api/v1/documents${query}`, { headers })).arrayBuffer();
    const rounds: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round += 1) {
      const created = await fetch(`${writer.url}/api/v1/documents`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'name=Scale&prompt=Notes+for+the+team&template_id=2',
      });
      if (created.status !== 201) throw new Error(`POST /api/v1/documents answered ${created.status}: ${await created.text()}`);
      const started = performance.now();
      const listed = await fetch(`${reader.url}/api/v1/documents${query}`, { headers });
      const body = await listed.text();
      const ms = performance.now() - started;
      if (listed.status !== 200) throw new Error(`GET /api/v1/documents${query} answered ${listed.status}: ${body}`);
      if (round > 0) rounds.push(ms); // the first round may read what the process never read (Redis)
    }
    times.push(median(rounds));
  }
  return times;
}

/**
 * Checks each query answers a page of documents, and the searches as many matches as they should at `size`,
 * so that the table compares like with like.
 */
async function checkMatches(reader: ServerProcess, secret: string, size: number): Promise<void> {
  for (const { name, query, matches } of QUERIES) {
    const answer = (await (
      await fetch(`${reader.url}/api/v1/documents${query(size)}`, { headers: { Authorization: `Bearer ${secret}` } })
    ).json()) as { data: unknown[]; meta: { total: number } };
    if (answer.data.length === 0) throw new Error(`${name} answered no document of ${size}`);
    const want = matches === undefined ? undefined : Math.round(matches(size));
    if (want !== undefined && answer.meta.total !== want)
      throw new Error(`${name} found ${answer.meta.total} documents of ${size}, not ${want}`);
  }
}

/** Measures every store at every size; answers the report's Markdown. */
export async function benchDocumentsScale(notes: string[]): Promise<string> {
  const report: string[] = [];
  for (const store of await stores(notes)) {
    console.error(`Documents on ${store.label}:`);
    const measurements: Measurement[] = [];
    try {
      const env = { DOSSIER_STORE: store.url, DOSSIER_CACHE: 'memory://' };
      const keys = createDossier({ store: store.url });
      const { secret } = await keys.keys.create({ name: 'documents-scale', owner: OWNER, scopes: ['documents'] });
      await keys.close();
      let seeded = 0;
      for (const size of SIZES) {
        const started = performance.now();
        await seed(store.url, seeded, size);
        seeded = size;
        console.error(
          `  ${size.toLocaleString('en')} documents written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        if (store.label === 'Redis') {
          const { usedMiB, indexesMiB } = await redisMemory(store.url);
          console.error(`  Redis holds ${usedMiB.toFixed(0)} MiB (used_memory), ${indexesMiB.toFixed(0)} MiB of it the indexes`);
          notes.push(
            `Redis at ${size.toLocaleString('en')} documents: ${usedMiB.toFixed(0)} MiB (used_memory), the documents' indexes ${indexesMiB.toFixed(0)} MiB of it.`,
          );
        }
        const [writer, reader] = await Promise.all([startDossier(env), startDossier(env)]);
        try {
          await checkMatches(reader, secret, size);
          const ms = await measureQueries(writer, reader, secret, size);
          measurements.push({ size, ms, rssMiB: reader.rssMiB() });
          if (store.label === 'Redis') {
            const busy = await redisSearchTimes(store.url, reader, secret, size);
            console.error(`  Redis's own time per search: ${busy.join(', ')}`);
            notes.push(`Redis's own time per search at ${size.toLocaleString('en')} documents: ${busy.join(', ')}.`);
          }
          console.error(
            `  ${ms.map((value, n) => `${QUERIES[n]!.name} ${value.toFixed(1)} ms`).join(', ')}, RSS ${reader.rssMiB().toFixed(0)} MiB`,
          );
        } finally {
          await Promise.all([writer.close(), reader.close()]);
        }
      }
    } finally {
      await store.drop();
    }
    report.push(tableOf(store.label, measurements));
  }
  return (
    `Documents at scale: one owner's documents, two \`dossier serve\` processes on one store; each list query timed on one ` +
    `process right after a create on the other, median of ${ROUNDS} (ms, as the client sees it, HTTP included); RSS of the listing process.\n\n` +
    report.join('\n\n')
  );
}

function tableOf(label: string, measurements: Measurement[]): string {
  const first = measurements[0];
  const last = measurements[measurements.length - 1];
  const header = `| ${label} | ${measurements.map((m) => `${m.size.toLocaleString('en')} docs`).join(' | ')} | ${last?.size.toLocaleString('en')} / ${first?.size.toLocaleString('en')} |`;
  const lines = [header, `|---|${measurements.map(() => '---:').join('|')}|---:|`];
  QUERIES.forEach(({ name }, n) => {
    const ratio = first && last ? last.ms[n]! / first.ms[n]! : NaN;
    lines.push(`| ${name} | ${measurements.map((m) => m.ms[n]!.toFixed(1)).join(' | ')} | ${ratio.toFixed(2)}× |`);
  });
  lines.push(
    `| RSS of the listing process (MiB) | ${measurements.map((m) => m.rssMiB.toFixed(0)).join(' | ')} | ${first && last ? (last.rssMiB / first.rssMiB).toFixed(2) : ''}× |`,
  );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const notes: string[] = [];
  console.log(await benchDocumentsScale(notes));
  for (const note of notes) console.log(`\n${note}`);
}
