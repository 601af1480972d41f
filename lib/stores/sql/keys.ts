import type { Logger } from '../../ports/logger.js';
import type { ApiKey, KeyEntry, KeyMark, KeyPage, KeyPageQuery, KeyRecords, SecretRecord } from '../../ports/key-store.js';
import { publicKey, searchedText, type StoredKey } from '../../records/stored-key.js';
import { placeIndexes, type ColumnTypes, type TableIndex } from './schema.js';
import { movableKeys, type OldKeyRecord } from '../../records/old-keys.js';
import { deserialize } from '../shared/serialize.js';
import type { WatchDialect, WatchTables } from './watches.js';
import { step, TablesSetUpOnce, type SqlStep, type SqlWork } from './work.js';

// Keys as rows, on SQLite, PostgreSQL and MySQL/MariaDB alike (docs/storage.md, "Keys and sessions as
// records"): `dossier_keys` holds each key's record with the columns its list is read by (its creation
// and id, its owner, its status, its scopes, the text a search looks in), indexed for the list's order;
// `dossier_key_secrets` the SHA-256 digest of each secret that opens a key, with until when an old one
// works after a roll. Each change of a key and of its secrets is one transaction; the number of keys is
// the `keys:count` counter, raised in the transaction that inserts one, so that the whole list's total
// reads one row. Statements are written with `?`.

/** What differs between the backends: the watches' dialect, with the tables of keys as its schema. */
export interface KeyDialect extends WatchDialect {
  /** `<contains>(column, ?)`: whether the text of the parameter is in the column, byte for byte. */
  contains: string;
  /**
   * The condition of a search of the lower-cased `needle` as the backend's substring index answers it;
   * by default `<contains>(search, ?) > 0`, which reads every row the other filters keep.
   */
  searched?: (needle: string) => KeyCondition;
  /** A substring index the statements of each write keep, where no trigger of the database does (MySQL). */
  searchIndex?: KeySearchIndex;
}

/**
 * A substring index of the keys' searched texts kept by {@link SqlKeyRecords}' own statements, in the
 * transaction that writes each key (SQLite's FTS5 and PostgreSQL's pg_trgm keep theirs themselves).
 */
export interface KeySearchIndex {
  /** Makes its tables, after the keys' (and fills them for the keys written before them). */
  setUp(): Promise<void>;
  /** The statements that index keys, after their rows are written; a key indexed already keeps its rows. */
  indexed(keys: { id: string; search: string }[]): SqlStep[];
  /** The statements that drop a key's index rows, given the searched text it had. */
  unindexed(id: string, search: string): SqlStep[];
  /** The condition of a search of the lower-cased `needle`, read from the index where it narrows it. */
  searched(needle: string): Promise<KeyCondition>;
}

/** A condition on the rows of `dossier_keys`, with the values of its placeholders. */
export interface KeyCondition {
  sql: string;
  values: unknown[];
  /**
   * A statement (`SELECT count(*) AS total …`, of the same values) that counts the keys the condition
   * keeps from the search's index alone, where the index answers it exactly: for a search with no other
   * filter, whose matches are not read to be counted.
   */
  counted?: string;
}

/** How a {@link SqlKeyRecords} reaches its database: as the watches do, with the keys' dialect. */
export interface KeyTables extends Omit<WatchTables, 'dialect'> {
  dialect: KeyDialect;
}

/** The counter of the keys: how many rows `dossier_keys` holds. */
export const KEY_COUNT = 'keys:count';

/** The tables and indexes, for SQLite and PostgreSQL (indexes apart) or MySQL (indexes inline). */
export function keySchema(types: ColumnTypes, inlineIndexes: boolean, tableOptions: string): string[] {
  const indexes: TableIndex[] = [
    ['dossier_keys', 'dossier_keys_by_creation', 'created_at, id'],
    ['dossier_keys', 'dossier_keys_by_owner', 'owner, created_at, id'],
    ['dossier_key_secrets', 'dossier_key_secrets_by_key', 'key_id'],
  ];
  const { within: inline, after } = placeIndexes(indexes, inlineIndexes);
  return [
    `CREATE TABLE IF NOT EXISTS dossier_keys (seq ${types.seq}, id ${types.id} NOT NULL UNIQUE, owner ${types.name} NOT NULL,
      created_at ${types.short} NOT NULL, revoked_at ${types.short}, expires_at ${types.short},
      scopes ${types.short} NOT NULL, search ${types.searched} NOT NULL, record ${types.text} NOT NULL${inline('dossier_keys')})${tableOptions}`,
    `CREATE TABLE IF NOT EXISTS dossier_key_secrets (digest ${types.id} PRIMARY KEY, key_id ${types.id} NOT NULL,
      grace_until ${types.count}${inline('dossier_key_secrets')})${tableOptions}`,
    ...after,
  ];
}

/** What reads the records of secrets, but the condition on their digests. */
const SECRETS_OF = 'SELECT s.digest, k.record, s.grace_until FROM dossier_key_secrets s JOIN dossier_keys k ON k.id = s.key_id';
/** The statement that reads the record of a secret: its digest as the one parameter. */
export const SECRET_SQL = `${SECRETS_OF} WHERE s.digest = ?`;
/** The records of several secrets, their digests given as one list parameter (mysql2 writes an array so). */
export const SECRETS_SQL = `${SECRETS_OF} WHERE s.digest IN (?)`;

/** Keys moved from older releases (or loaded) per transaction: one statement of up to 8 × 500 values a table. */
const MIGRATION_BATCH = 500;

/**
 * Keys as rows of a SQL database ({@link KeyRecords}). Before its first call, the tables are made and
 * the keys older releases kept as key-value records are moved into them ({@link ready}).
 */
export class SqlKeyRecords implements KeyRecords {
  /** The tables, set up: made, then the keys of older releases moved ({@link moveKeyvRecords}). */
  private readonly sql: TablesSetUpOnce;

  constructor(private readonly tables: KeyTables) {
    this.sql = new TablesSetUpOnce(tables, async () => {
      await tables.prepare();
      for (const sql of tables.dialect.schema) await tables.ddl(sql);
      await tables.dialect.searchIndex?.setUp();
      await this.moveKeyvRecords();
    });
  }

  async insert(key: ApiKey, digest: string): Promise<void> {
    const { insertIgnore, searchIndex } = this.tables.dialect;
    await this.sql.transaction(function* () {
      yield step(`INSERT INTO dossier_keys (${KEY_COLUMNS}) VALUES (${KEY_VALUES})`, keyValues(key));
      yield step('INSERT INTO dossier_key_secrets (digest, key_id, grace_until) VALUES (?, ?, NULL)', [digest, key.id]);
      yield* searchIndex?.indexed([{ id: key.id, search: searchedText(key) }]) ?? [];
      yield* raise(KEY_COUNT, 1, insertIgnore.start, insertIgnore.end);
    });
  }

  async insertMany(entries: KeyEntry[]): Promise<void> {
    for (let from = 0; from < entries.length; from += MIGRATION_BATCH) {
      await this.sql.transaction(this.inserted(entries.slice(from, from + MIGRATION_BATCH)));
    }
  }

  /**
   * The statements that insert keys (a key whose id is stored already skipped with its secrets) and raise
   * the count of keys by the number inserted.
   */
  private inserted(entries: KeyEntry[]): () => SqlWork<void> {
    const { insertIgnore, searchIndex } = this.tables.dialect;
    const { start, end } = insertIgnore;
    const secrets = entries.flatMap(({ key, secrets: of }) =>
      of.map((secret) => [secret.digest, key.id, secret.graceUntil ?? null]),
    );
    return function* () {
      if (entries.length === 0) return;
      // One statement a table: a key already there is skipped, and so are its secrets, inserted with it.
      const keys = yield step(
        `${start} dossier_keys (${KEY_COLUMNS}) VALUES ${entries.map(() => `(${KEY_VALUES})`).join(', ')}${end}`,
        entries.flatMap(({ key }) => keyValues(key)),
      );
      const insert = (rows: unknown[][]): SqlStep =>
        step(
          `${start} dossier_key_secrets (digest, key_id, grace_until) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}${end}`,
          rows.flat(),
        );
      const searched = (chosen: KeyEntry[]): SqlStep[] =>
        searchIndex?.indexed(chosen.map(({ key }) => ({ id: key.id, search: searchedText(key) }))) ?? [];
      if (keys.changes === entries.length) {
        if (secrets.length > 0) yield insert(secrets);
        yield* searched(entries);
      } else {
        // Some keys were there already (moved by another process, and maybe rolled since): only those
        // inserted now get their secrets, each key having had one from its first transaction on.
        for (const { key } of entries) {
          const [held] = (yield step('SELECT 1 AS held FROM dossier_key_secrets WHERE key_id = ?', [key.id])).rows;
          const own = secrets.filter(([, id]) => id === key.id);
          if (held === undefined && own.length > 0) yield insert(own);
          // A key inserted now is indexed; one there already has its rows (or the index's fill writes them).
          if (held === undefined) yield* searched([{ key, secrets: [] }]);
        }
      }
      yield* raise(KEY_COUNT, keys.changes, start, end);
    };
  }

  async bySecret(digest: string): Promise<SecretRecord | undefined> {
    const [row] = await this.sql.read(SECRET_SQL, [digest]);
    return row === undefined ? undefined : secretOf(row);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const [row] = await this.sql.read('SELECT record FROM dossier_keys WHERE id = ?', [id]);
    return row === undefined ? undefined : recordOf(row);
  }

  async change(id: string, apply: (key: ApiKey) => ApiKey): Promise<ApiKey | undefined> {
    const { forUpdate, searchIndex } = this.tables.dialect;
    return this.sql.transaction(function* () {
      const [row] = (yield step(`SELECT record, search FROM dossier_keys WHERE id = ?${forUpdate}`, [id])).rows;
      if (row === undefined) return undefined;
      const before = recordOf(row);
      const key = apply(before);
      if (key === before) return key;
      yield step(`UPDATE dossier_keys SET ${KEY_CHANGES} WHERE id = ?`, [...changedValues(key), id]);
      const [was, is] = [String(row.search), searchedText(key)];
      if (searchIndex !== undefined && is !== was) {
        yield* searchIndex.unindexed(id, was);
        yield* searchIndex.indexed([{ id, search: is }]);
      }
      return key;
    });
  }

  async roll(
    id: string,
    check: (key: ApiKey) => void,
    digest: string,
    graceUntil: number | null,
    now: number,
  ): Promise<ApiKey | undefined> {
    const { forUpdate } = this.tables.dialect;
    return this.sql.transaction(function* () {
      const [row] = (yield step(`SELECT record FROM dossier_keys WHERE id = ?${forUpdate}`, [id])).rows;
      if (row === undefined) return undefined;
      const key = recordOf(row);
      check(key);
      yield step('DELETE FROM dossier_key_secrets WHERE key_id = ? AND grace_until <= ?', [id, now]);
      if (graceUntil === null) yield step('DELETE FROM dossier_key_secrets WHERE key_id = ? AND grace_until IS NULL', [id]);
      else
        yield step('UPDATE dossier_key_secrets SET grace_until = ? WHERE key_id = ? AND grace_until IS NULL', [graceUntil, id]);
      yield step('INSERT INTO dossier_key_secrets (digest, key_id, grace_until) VALUES (?, ?, NULL)', [digest, id]);
      return key;
    });
  }

  async all(): Promise<ApiKey[]> {
    return (await this.sql.read('SELECT record FROM dossier_keys ORDER BY created_at, id', [])).map(recordOf);
  }

  async page(query: KeyPageQuery): Promise<KeyPage> {
    const { limit, after, before } = query;
    // The search's index may read its own tables first.
    if (!this.sql.done) await this.sql.ready();
    const filter = await this.filterOf(query);
    const where = (mark: string[], values: unknown[]): [string, unknown[]] => {
      const all = [...filter.sql, ...mark];
      return [all.length === 0 ? '' : ` WHERE ${all.join(' AND ')}`, [...filter.values, ...values]];
    };
    const rows = async (mark: KeyMark | undefined, newer: boolean, count: number): Promise<ApiKey[]> => {
      const [sql, values] = where(mark === undefined ? [] : [newer ? NEWER : OLDER], mark === undefined ? [] : markValues(mark));
      const order = newer ? 'ASC' : 'DESC';
      const ordered = (table: string): string => `ORDER BY ${table}created_at ${order}, ${table}id ${order}`;
      // A search's matches come from its index in no order of the list: all of them are sorted, by their
      // creation and id only, and the page's records read after (sorting the records cost twice as much).
      const read = await this.sql.read(
        query.search === undefined
          ? `SELECT record FROM dossier_keys${sql} ${ordered('')} LIMIT ?`
          : `SELECT k.record FROM (SELECT seq FROM dossier_keys${sql} ${ordered('')} LIMIT ?) p
              JOIN dossier_keys k ON k.seq = p.seq ${ordered('k.')}`,
        [...values, count],
      );
      return read.map(recordOf);
    };
    let items: ApiKey[];
    let more: boolean;
    let earlier: boolean;
    const newerFirst = before === undefined ? [] : await rows(before, true, limit + 1);
    if (before !== undefined && newerFirst.length > limit) {
      items = newerFirst.slice(0, limit).reverse();
      more = true;
      earlier = true;
    } else {
      // After a mark, or the first page (also for a `before` that has fewer than a page before it).
      const start = before === undefined ? after : undefined;
      const read = await rows(start, false, limit + 1);
      items = read.slice(0, limit);
      more = read.length > limit;
      earlier = start !== undefined && items.length > 0 && (await rows(markOf(items[0]!), true, 1)).length > 0;
    }
    return {
      items,
      total: await this.count(filter, where),
      next: more ? markOf(items.at(-1)!) : null,
      previous: earlier ? markOf(items[0]!) : null,
    };
  }

  /**
   * The exact count of the keys a filter matches: the counter of keys when nothing filters, the search's
   * index alone when it is the only filter and answers it exactly.
   */
  private async count(filter: KeyFilter, where: (mark: string[], values: unknown[]) => [string, unknown[]]): Promise<number> {
    if (filter.sql.length === 0) {
      const [row] = await this.sql.read('SELECT value FROM dossier_counters WHERE name = ?', [KEY_COUNT]);
      return Number(row?.value ?? 0);
    }
    if (filter.counted !== undefined) {
      const [row] = await this.sql.read(filter.counted.sql, filter.counted.values);
      return Number(row?.total ?? 0);
    }
    const [sql, values] = where([], []);
    const [row] = await this.sql.read(`SELECT count(*) AS total FROM dossier_keys${sql}`, values);
    return Number(row?.total ?? 0);
  }

  /** The conditions of a query's filters, and their values. */
  private async filterOf(query: KeyPageQuery): Promise<KeyFilter> {
    const sql: string[] = [];
    const values: unknown[] = [];
    const add = (condition: string, ...given: unknown[]): void => {
      sql.push(condition);
      values.push(...given);
    };
    const now = new Date(query.now).toISOString();
    const { contains } = this.tables.dialect;
    if (query.owner !== undefined) add('owner = ?', query.owner);
    if (query.status === 'revoked') add('revoked_at IS NOT NULL');
    if (query.status === 'expired') add('revoked_at IS NULL AND expires_at <= ?', now);
    if (query.status === 'active') add('revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)', now);
    if (query.scope !== undefined) add(`${contains}(scopes, ?) > 0`, `,${query.scope},`);
    if (query.search !== undefined) {
      const { searched, searchIndex } = this.tables.dialect;
      // No field holds a line break: such a search matches nothing (the searched text has one between fields).
      if (query.search.includes('\n')) add('1 = 0');
      else if (searched === undefined && searchIndex === undefined) add(`${contains}(search, ?) > 0`, query.search);
      else {
        const { sql: condition, values: given, counted } = await (searchIndex?.searched(query.search) ?? searched!(query.search));
        add(condition, ...given);
        if (counted !== undefined && sql.length === 1) return { sql, values, counted: { sql: counted, values: given } };
      }
    }
    return { sql, values };
  }

  /** Makes the tables and moves the keys of older releases, if that was not done yet; one that failed is tried again. */
  ready(): Promise<void> {
    return this.sql.ready();
  }

  /**
   * Moves the keys that releases before these tables kept as key-value records (`<namespace>:key:<digest>`
   * for each secret, `<namespace>:key-id:<id>` naming the current one, an append-only list of digests
   * beside them) into the tables, as {@link movableKeys} reads them: the records are what counts, so that a
   * store a killed process left half done (a digest listed with no record, a record no list holds) comes
   * out whole. A batch of keys at a time, inserted (a key or secret already there is skipped) and its
   * records deleted from `keyv` in one transaction, so that a move cut off goes on where it stopped and
   * two processes moving at once move each key once; the count of keys is then counted from the rows.
   */
  private async moveKeyvRecords(): Promise<void> {
    const { namespace, dialect } = this.tables;
    const { start, end } = dialect.insertIgnore;
    const column = dialect.keyvKey;
    const placed = this.sql.placed;
    const keyv = (sql: string, values: unknown[]): Promise<Record<string, unknown>[]> => this.tables.read(placed(sql), values);
    const [found] = await keyv(
      `SELECT 1 AS found FROM keyv WHERE ${column} >= ? AND ${column} < ? LIMIT 1`,
      prefixRange(`${namespace}:key`),
    );
    if (found === undefined) {
      // Nothing of an older release: the counter of a store that has never had one is made here.
      await this.tables.transaction(function* () {
        yield* raise(KEY_COUNT, 0, start, end, placed);
      });
      return;
    }
    const records: OldKeyRecord[] = [];
    for (const prefix of [`${namespace}:key:`, `${namespace}:key-id:`]) {
      for (let after = prefix; ;) {
        const batch = await keyv(
          `SELECT ${column} AS name, value FROM keyv WHERE ${column} > ? AND ${column} < ? ORDER BY ${column} LIMIT ?`,
          [after, prefixRange(prefix)[1], MIGRATION_BATCH],
        );
        if (batch.length === 0) break;
        after = String(batch.at(-1)!.name);
        for (const row of batch)
          records.push({ name: String(row.name).slice(namespace.length + 1), value: keyvValue(String(row.value)) });
      }
    }
    const { keys, unreadable } = movableKeys(records, Date.now());
    for (let from = 0; from < keys.length; from += MIGRATION_BATCH) {
      await this.sql.run(this.inserted(keys.slice(from, from + MIGRATION_BATCH)));
    }
    await this.tables.transaction(function* () {
      // The records of no key (an old secret past its grace, a half-made roll), then the list of digests and its counter.
      for (const prefix of ['key:', 'key-id:', 'keys:']) {
        yield step(placed(`DELETE FROM keyv WHERE ${column} >= ? AND ${column} < ?`), prefixRange(`${namespace}:${prefix}`));
      }
      yield step(placed('DELETE FROM dossier_counters WHERE name = ?'), ['keys:length']);
    });
    if (unreadable > 0) {
      this.tables.logger?.warn('Some key-value records of keys could not be read, and were dropped.', { records: unreadable });
    }
  }
}

/** The conditions of a page's filters and their values; `counted`, the statement of their count where one reads less. */
interface KeyFilter {
  sql: string[];
  values: unknown[];
  counted?: { sql: string; values: unknown[] };
}

const KEY_COLUMNS = 'id, owner, created_at, revoked_at, expires_at, scopes, search, record';
const KEY_VALUES = '?, ?, ?, ?, ?, ?, ?, ?';
const KEY_CHANGES = 'revoked_at = ?, expires_at = ?, scopes = ?, search = ?, record = ?';
/** A key newer than a mark (given as its creation twice and its id). */
// A range of the leading column first, which every database reads from the index, then the tie on the id.
const NEWER = 'created_at >= ? AND (created_at > ? OR id > ?)';
const OLDER = 'created_at <= ? AND (created_at < ? OR id < ?)';

function markValues(mark: KeyMark): unknown[] {
  return [mark.createdAt, mark.createdAt, mark.id];
}

function markOf(key: ApiKey): KeyMark {
  return { createdAt: key.createdAt, id: key.id };
}

/** The values of {@link KEY_COLUMNS}. */
function keyValues(key: ApiKey): unknown[] {
  return [key.id, key.owner, key.createdAt, ...changedValues(key)];
}

/** The values of {@link KEY_CHANGES} (but the id). */
function changedValues(key: ApiKey): unknown[] {
  return [key.revokedAt, key.expiresAt, `,${key.scopes.join(',')},`, searchedText(key), JSON.stringify(publicKey(key))];
}

/** Raises a counter by `by`, made when missing; `placed` writes the placeholders for a transaction run directly on the tables. */
function* raise(name: string, by: number, start: string, end: string, placed = (sql: string): string => sql): SqlWork<void> {
  yield step(placed(`${start} dossier_counters (name, value, expires_at) VALUES (?, 0, NULL)${end}`), [name]);
  if (by !== 0) yield step(placed('UPDATE dossier_counters SET value = value + ? WHERE name = ?'), [by, name]);
}

function recordOf(row: Record<string, unknown>): ApiKey {
  return JSON.parse(String(row.record)) as ApiKey;
}

/** The record of a secret from a row of {@link SECRET_SQL}. */
export function secretOf(row: Record<string, unknown>): SecretRecord {
  const key = recordOf(row);
  return row.grace_until === null || row.grace_until === undefined ? { key } : { key, graceUntil: Number(row.grace_until) };
}

/** What the admissions judge (lib/stores/shared/admission-plan.ts) of a row of {@link SECRET_SQL}. */
export function storedKeyOfRow(row: Record<string, unknown>): StoredKey {
  const { key, graceUntil } = secretOf(row);
  return graceUntil === undefined ? key : { ...key, graceUntil };
}

/** The lower and upper bound of the names that start with `prefix` (its last character raised by one). */
function prefixRange(prefix: string): [string, string] {
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)];
}

/** The value of a record as Keyv wrote it (`{"value":…,"expires":…}`), or `undefined`. */
function keyvValue(text: string): unknown {
  try {
    const { value, expires } = deserialize<{ value?: unknown; expires?: number | null }>(text);
    return typeof expires === 'number' && expires <= Date.now() ? undefined : value;
  } catch {
    return undefined;
  }
}
