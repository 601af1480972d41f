import Keyv from 'keyv';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { SqliteAdmissionStore } from './admission.js';
import { SQLITE_DIALECT, SqlCounterStore } from '../sql/counters.js';
import { BetterSqliteKeyvStore } from './keyv-store.js';
import { SqliteConnection, statementCache } from './connection.js';
import { SqliteDocumentStore } from './documents.js';
import { deserialize, serialize } from '../shared/serialize.js';
import type { Backend } from '../../ports/backend.js';
import { assembleBackend } from '../shared/assemble.js';
import { SqlWatchStore, watchSchema, type WatchDialect, type WatchTables } from '../sql/watches.js';
import type { SqlAnswer, SqlWork } from '../sql/work.js';
import { keySchema, SqlKeyRecords, type KeyDialect } from '../sql/keys.js';
import { trigramsOf } from '../sql/documents.js';
import { exactPhrase, ftsFollowing, ftsPhrase, remakeFts } from './fts.js';
import { sessionSchema, SqlSessionStore } from '../sql/sessions.js';

/** How SQLite writes what the tables of watches need. */
const SQLITE_WATCHES: WatchDialect = {
  ...SQLITE_DIALECT,
  schema: watchSchema(
    { seq: 'INTEGER PRIMARY KEY AUTOINCREMENT', id: 'TEXT', name: 'TEXT', text: 'TEXT', count: 'INTEGER' },
    false,
    '',
  ),
  insertIgnore: { start: 'INSERT INTO', end: ' ON CONFLICT DO NOTHING' },
  forUpdate: '',
  keyvKey: 'key',
};

/**
 * The trigrams of the keys' searched texts (case-sensitive, as the texts are lower-cased already), where
 * each is (`detail=full`), so that a phrase query of a needle finds exactly the keys that hold it.
 */
const KEY_SEARCH_FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS dossier_key_search USING fts5(
      text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1', detail = 'full')`;
const KEY_SEARCH_FILL = 'INSERT INTO dossier_key_search (rowid, text) SELECT seq, search FROM dossier_keys';
/** The rowids (the keys' `seq`) of the keys whose searched text the FTS5 query of the one parameter finds. */
const KEY_SEARCH_ROWIDS = 'SELECT rowid FROM dossier_key_search WHERE dossier_key_search MATCH ?';

/** How SQLite writes what the tables of keys need. */
const SQLITE_KEYS: KeyDialect = {
  ...SQLITE_WATCHES,
  schema: [
    ...keySchema(
      {
        seq: 'INTEGER PRIMARY KEY AUTOINCREMENT',
        id: 'TEXT',
        name: 'TEXT',
        short: 'TEXT',
        searched: 'TEXT',
        text: 'TEXT',
        count: 'INTEGER',
      },
      false,
      '',
    ),
    KEY_SEARCH_FTS,
    `CREATE TRIGGER IF NOT EXISTS dossier_keys_inserted AFTER INSERT ON dossier_keys BEGIN
      INSERT INTO dossier_key_search (rowid, text) VALUES (new.seq, new.search);
    END`,
    ftsFollowing('dossier_keys_renamed', 'dossier_keys', 'seq', 'search', 'dossier_key_search'),
    ...sessionSchema({ id: 'TEXT', text: 'TEXT', count: 'INTEGER' }, false, ''),
  ],
  contains: 'instr',
  // The trigrams of each key's searched text in an FTS5 table kept by triggers, as the documents' (a key
  // is never deleted); a needle of three characters or more is the phrase of its trigrams there, which is
  // the substring test itself: its matches are counted in the FTS table alone, and read by their rowids.
  searched: (needle) => {
    const check = { sql: 'instr(search, ?) > 0', values: [needle] };
    if (trigramsOf(needle).length === 0) return check;
    const found = { sql: `seq IN (${KEY_SEARCH_ROWIDS})`, values: [ftsPhrase(needle)] };
    if (!exactPhrase(needle)) return { sql: `${found.sql} AND ${check.sql}`, values: [...found.values, needle] };
    return { ...found, counted: 'SELECT count(*) AS total FROM dossier_key_search WHERE dossier_key_search MATCH ?' };
  },
};

/** Settings of {@link createSqliteBackend}. */
export interface SqliteOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string;
  /** Keeps this backend's keys apart from others in the same file. @default 'dossier' */
  namespace?: string;
  /** Time source of counter and lease expiry. @default Date.now */
  clock?: Clock;
  /**
   * How long a statement waits for another process's lock before the call fails with
   * `ERR_STORE_UNAVAILABLE`: the deadline of every call to this store (a statement runs synchronously,
   * so waiting on a lock is the only way it can be slow). @default 2000
   */
  timeoutMs?: number;
  /** Where the backend says what it could not do (documents it could not move to their table). @default nothing */
  logger?: Logger;
}

/**
 * A SQLite file (`sqlite://PATH`) through better-sqlite3: values in the `keyv` table, counters,
 * leases and documents in their own tables, every statement prepared once and run synchronously on one connection
 * in WAL mode, shared safely by several processes.
 */
export function createSqliteBackend(options: SqliteOptions): Backend {
  const connection = new SqliteConnection({ path: options.path, busyTimeoutMs: options.timeoutMs ?? 2000 });
  let statement: ReturnType<typeof statementCache> | undefined;
  connection.onOpen((db) => {
    statement = statementCache(db);
    // The keys' FTS table of releases before (`detail=none`, case-insensitive) cannot answer a phrase.
    remakeFts(db, 'dossier_key_search', KEY_SEARCH_FTS, KEY_SEARCH_FILL);
  });
  const clock = options.clock ?? { now: () => Date.now() };
  const namespace = options.namespace ?? 'dossier';
  const counters = new SqlCounterStore(
    (sql, parameters) => {
      // Reads run at once; writes join the connection's next group commit.
      if (/^\s*SELECT\b/i.test(sql)) return connection.run(() => statement!(sql).all(...parameters));
      return connection.write(() => {
        const prepared = statement!(sql);
        if (prepared.reader) return prepared.all(...parameters);
        prepared.run(...parameters);
        return [];
      });
    },
    SQLITE_DIALECT,
    clock,
  );
  const keyv = new Keyv({ store: new BetterSqliteKeyvStore(connection), namespace, serialize, deserialize });
  const documents = new SqliteDocumentStore(connection, counters, { namespace, logger: options.logger });
  const tables: Omit<WatchTables, 'dialect'> = {
    namespace,
    logger: options.logger,
    prepare: () => counters.tablesExist(),
    read: (sql, values) => connection.run(() => statement!(sql).all(...values) as Record<string, unknown>[]),
    ddl: async (sql) => {
      await connection.write((db) => db.exec(sql));
    },
    // In the connection's group commit, each transaction a savepoint of its own: one that fails undoes
    // all its statements and no other's.
    transaction: (work) =>
      connection.write((db) =>
        db.transaction(() => {
          const steps: SqlWork<unknown> = work();
          for (let next = steps.next(); ;) {
            if (next.done === true) return next.value;
            const prepared = statement!(next.value.sql);
            const answer: SqlAnswer = prepared.reader
              ? { rows: prepared.all(...next.value.values) as Record<string, unknown>[], changes: 0 }
              : { rows: [], changes: prepared.run(...next.value.values).changes };
            next = steps.next(answer);
          }
        })(),
      ) as never,
  };
  const watches = new SqlWatchStore({ ...tables, dialect: SQLITE_WATCHES });
  const keys = new SqlKeyRecords({ ...tables, dialect: SQLITE_KEYS });
  const sessions = new SqlSessionStore({ ...tables, dialect: SQLITE_KEYS }, keys, clock);
  const admissions = new SqliteAdmissionStore(connection, counters, keys, clock);
  return assembleBackend({ keyv, counters, clock, admissions, documents, watches, keys, sessions });
}
