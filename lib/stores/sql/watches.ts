import type { Logger } from '../../ports/logger.js';
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
import {
  byCreation,
  cursorOfSeq,
  OLD_WATCH_LISTS,
  oldRecord,
  seqOfCursor,
  type OldWatchRecord,
} from '../shared/watch-records.js';
import type { SqlDialect } from './counters.js';
import { placeIndexes, type ColumnTypes, type TableIndex } from './schema.js';
import { step, TablesSetUpOnce, type SqlWork } from './work.js';

// Watches and their deliveries as rows, on SQLite, PostgreSQL and MySQL/MariaDB alike (docs/storage.md):
// `dossier_watches` holds each watch's record with the columns its lists are read by (its owner, its key,
// and `seq`, the order of creation), indexed for each list; `dossier_watch_keys` how many watches each key
// holds, the row whose lock serializes the creations of one key against its limit; `dossier_watch_deliveries`
// each delivery, by watch and by whether it is pending; `dossier_watch_unscheduled` the watches whose
// schedule is not confirmed. Each change of a record and of what counts it is one transaction, with the
// `watch-list:changes` or `delivery-list:changes` counter it moves. Statements are written with `?`.

/** The counter raised by each change of the list of watches (what the timer engine polls). */
export const WATCH_CHANGES = 'watch-list:changes';
/** The counter raised by each change of the list of pending deliveries. */
export const DELIVERY_CHANGES = 'delivery-list:changes';

/** What differs between the backends, beside {@link SqlDialect}. */
export interface WatchDialect extends SqlDialect {
  /** The statements that make the tables and indexes, each safe to run again. */
  schema: string[];
  /** `INSERT … ` that skips a row whose key is taken: its start and its end around `(columns) VALUES (…)`. */
  insertIgnore: { start: string; end: string };
  /** What locks the rows a read in a transaction selects (nothing on SQLite, whose writes are serial). */
  forUpdate: string;
  /** The key column of the `keyv` table, quoted. */
  keyvKey: string;
}

/** How a {@link SqlWatchStore} reaches its database. */
export interface WatchTables {
  dialect: WatchDialect;
  /** Runs one statement outside a transaction (placeholders already the backend's). */
  read(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs `work`'s statements (placeholders already the backend's) in one transaction, committed if it returns. */
  transaction<T>(work: () => SqlWork<T>): Promise<T>;
  /**
   * Runs one change outside a transaction (placeholders already the backend's), committed by itself: where
   * a transaction costs round trips of its own (PostgreSQL: `BEGIN` and `COMMIT`, one each), a change that
   * is one statement costs one. @default a transaction of that one statement
   */
  write?(sql: string, values: unknown[]): Promise<void>;
  /** Runs one statement of the schema. */
  ddl(sql: string): Promise<void>;
  /** Makes what the store reads beside its own tables (the counters, the `keyv` table). */
  prepare(): Promise<unknown>;
  /** Where the move of the watches of older releases says what it could not move. @default nothing */
  logger?: Logger;
  /** The Keyv namespace the key-value records of older releases are under. */
  namespace: string;
}

/** The tables and indexes, for SQLite and PostgreSQL (indexes apart) or MySQL (indexes inline). */
export function watchSchema(
  types: Omit<ColumnTypes, 'short' | 'searched'>,
  inlineIndexes: boolean,
  tableOptions: string,
): string[] {
  const indexes: TableIndex[] = [
    ['dossier_watches', 'dossier_watches_by_owner', 'owner, seq'],
    ['dossier_watches', 'dossier_watches_by_key', 'key_id, seq'],
    ['dossier_watch_deliveries', 'dossier_watch_deliveries_by_watch', 'watch_id, seq'],
    ['dossier_watch_deliveries', 'dossier_watch_deliveries_pending', 'pending, seq'],
  ];
  const { within: inline, after } = placeIndexes(indexes, inlineIndexes);
  return [
    `CREATE TABLE IF NOT EXISTS dossier_watches (seq ${types.seq}, id ${types.id} NOT NULL UNIQUE,
      owner ${types.name} NOT NULL, key_id ${types.name} NOT NULL, record ${types.text} NOT NULL${inline('dossier_watches')})${tableOptions}`,
    `CREATE TABLE IF NOT EXISTS dossier_watch_keys (key_id ${types.name} PRIMARY KEY, watches ${types.count} NOT NULL)${tableOptions}`,
    `CREATE TABLE IF NOT EXISTS dossier_watch_unscheduled (id ${types.id} PRIMARY KEY)${tableOptions}`,
    `CREATE TABLE IF NOT EXISTS dossier_watch_deliveries (seq ${types.seq}, id ${types.id} NOT NULL UNIQUE,
      watch_id ${types.id} NOT NULL, pending SMALLINT NOT NULL, record ${types.text} NOT NULL${inline('dossier_watch_deliveries')})${tableOptions}`,
    ...after,
  ];
}

/** Watch records of older releases moved per transaction: one statement a table each. */
const MIGRATION_BATCH = 500;

/**
 * Watches and deliveries as rows of a SQL database ({@link WatchStore}). Before its first call, the tables
 * are made and what older releases kept as key-value records is moved into them ({@link adoptOldLists}).
 */
export class SqlWatchStore<W extends WatchRecord = WatchRecord> implements WatchStore<W> {
  /** The tables, set up: made, then the watches of older releases moved ({@link moveKeyvRecords}). */
  private readonly sql: TablesSetUpOnce;
  /** The watches this store moved from older releases' records, until {@link adoptOldLists} says so. */
  private moved = 0;

  constructor(private readonly tables: WatchTables) {
    this.sql = new TablesSetUpOnce(tables, async () => {
      await tables.prepare();
      for (const sql of tables.dialect.schema) await tables.ddl(sql);
      await this.moveKeyvRecords();
    });
  }

  async insert(watch: W, limit: number): Promise<boolean> {
    const { start, end } = this.tables.dialect.insertIgnore;
    return this.sql.transaction(function* () {
      // The row's lock serializes the creations of one key: each sees the count the last one left. The
      // row is made only when the key has none: an insert that finds it takes a shared lock first, and
      // two creations holding it at once would each wait for the other's (a deadlock on InnoDB).
      const take = step('UPDATE dossier_watch_keys SET watches = watches + 1 WHERE key_id = ? AND watches < ?', [
        watch.keyId,
        limit,
      ]);
      let placed = yield take;
      if (placed.changes === 0) {
        yield step(`${start} dossier_watch_keys (key_id, watches) VALUES (?, 0)${end}`, [watch.keyId]);
        placed = yield take;
      }
      if (placed.changes === 0) return false;
      yield step('INSERT INTO dossier_watches (id, owner, key_id, record) VALUES (?, ?, ?, ?)', [
        watch.id,
        watch.owner,
        watch.keyId,
        JSON.stringify(watch),
      ]);
      yield* raise(WATCH_CHANGES, start, end);
      return true;
    });
  }

  async save(watch: W): Promise<void> {
    await this.write('UPDATE dossier_watches SET record = ? WHERE id = ?', [JSON.stringify(watch), watch.id]);
  }

  async get(id: string): Promise<W | undefined> {
    const [row] = await this.sql.read('SELECT record FROM dossier_watches WHERE id = ?', [id]);
    return row === undefined ? undefined : recordOf<W>(row);
  }

  async remove(id: string): Promise<W | undefined> {
    const { forUpdate, insertIgnore } = this.tables.dialect;
    return this.sql.transaction(function* () {
      const [row] = (yield step(`SELECT record FROM dossier_watches WHERE id = ?${forUpdate}`, [id])).rows;
      if (row === undefined) return undefined;
      const watch = recordOf<W>(row);
      yield step('DELETE FROM dossier_watches WHERE id = ?', [id]);
      yield step('UPDATE dossier_watch_keys SET watches = watches - 1 WHERE key_id = ?', [watch.keyId]);
      yield step('DELETE FROM dossier_watch_unscheduled WHERE id = ?', [id]);
      yield* raise(WATCH_CHANGES, insertIgnore.start, insertIgnore.end);
      return watch;
    });
  }

  async removeOfKey(keyId: string): Promise<RemovedOfKey> {
    const { forUpdate, insertIgnore } = this.tables.dialect;
    return this.sql.transaction(function* () {
      const watches = (yield step(`SELECT id FROM dossier_watches WHERE key_id = ?${forUpdate}`, [keyId])).rows.map((row) =>
        String(row.id),
      );
      if (watches.length === 0) {
        yield step('DELETE FROM dossier_watch_keys WHERE key_id = ?', [keyId]);
        return { watches, pending: [] };
      }
      const ofKey = 'SELECT id FROM dossier_watches WHERE key_id = ?';
      // MySQL reads no table in a subquery of a DELETE of it: the deliveries go by a join instead.
      yield step(`DELETE FROM dossier_watch_deliveries WHERE pending = 0 AND watch_id IN (SELECT w.id FROM (${ofKey}) w)`, [
        keyId,
      ]);
      const pending = (yield step(
        `SELECT d.id FROM dossier_watch_deliveries d JOIN dossier_watches w ON w.id = d.watch_id WHERE w.key_id = ?`,
        [keyId],
      )).rows.map((row) => String(row.id));
      yield step(`DELETE FROM dossier_watch_unscheduled WHERE id IN (SELECT w.id FROM (${ofKey}) w)`, [keyId]);
      yield step('DELETE FROM dossier_watches WHERE key_id = ?', [keyId]);
      yield step('DELETE FROM dossier_watch_keys WHERE key_id = ?', [keyId]);
      yield* raise(WATCH_CHANGES, insertIgnore.start, insertIgnore.end);
      return { watches, pending };
    });
  }

  ofOwner(owner: string, page: PageQuery): Promise<Page<W>> {
    return this.page('owner', owner, page);
  }

  ofKey(keyId: string, page: PageQuery): Promise<Page<W>> {
    return this.page('key_id', keyId, page);
  }

  /** A page of the watches whose `column` is `value`, read from its index, newest first. */
  private async page(column: 'owner' | 'key_id', value: string, { limit, cursor }: PageQuery): Promise<Page<W>> {
    const before = cursor === undefined ? undefined : seqOfCursor(cursor);
    const rows = await this.sql.read(
      `SELECT seq, record FROM dossier_watches WHERE ${column} = ?${before === undefined ? '' : ' AND seq < ?'}
        ORDER BY seq DESC LIMIT ?`,
      before === undefined ? [value, limit + 1] : [value, before, limit + 1],
    );
    const [counted] = await this.sql.read(`SELECT count(*) AS total FROM dossier_watches WHERE ${column} = ?`, [value]);
    const items = rows.slice(0, limit);
    return {
      items: items.map((row) => recordOf<W>(row)),
      total: Number(counted?.total ?? 0),
      nextCursor: rows.length > limit ? cursorOfSeq(Number(items.at(-1)!.seq)) : null,
    };
  }

  async allIds(): Promise<string[]> {
    return (await this.sql.read('SELECT id FROM dossier_watches', [])).map((row) => String(row.id));
  }

  async changes(): Promise<WatchStoreChanges> {
    const rows = await this.sql.read('SELECT name, value FROM dossier_counters WHERE name IN (?, ?)', [
      WATCH_CHANGES,
      DELIVERY_CHANGES,
    ]);
    const value = (name: string): number => Number(rows.find((row) => String(row.name) === name)?.value ?? 0);
    return { watches: value(WATCH_CHANGES), deliveries: value(DELIVERY_CHANGES) };
  }

  async markUnscheduled(id: string): Promise<void> {
    const { start, end } = this.tables.dialect.insertIgnore;
    await this.write(`${start} dossier_watch_unscheduled (id) VALUES (?)${end}`, [id]);
  }

  async markScheduled(id: string): Promise<void> {
    await this.write('DELETE FROM dossier_watch_unscheduled WHERE id = ?', [id]);
  }

  async unscheduled(): Promise<string[]> {
    return (await this.sql.read('SELECT id FROM dossier_watch_unscheduled', [])).map((row) => String(row.id));
  }

  async insertDelivery(delivery: StoredDelivery): Promise<void> {
    const { start, end } = this.tables.dialect.insertIgnore;
    const trim = this.trim.bind(this);
    await this.sql.transaction(function* () {
      const pending = delivery.status === 'pending' ? 1 : 0;
      const inserted = yield step(`${start} dossier_watch_deliveries (id, watch_id, pending, record) VALUES (?, ?, ?, ?)${end}`, [
        delivery.id,
        delivery.watchId,
        pending,
        JSON.stringify(delivery),
      ]);
      if (inserted.changes === 0) return;
      if (pending === 1) yield* raise(DELIVERY_CHANGES, start, end);
      yield* trim(delivery.watchId);
    });
  }

  async saveDelivery(delivery: StoredDelivery): Promise<void> {
    const { forUpdate, insertIgnore } = this.tables.dialect;
    const trim = this.trim.bind(this);
    await this.sql.transaction(function* () {
      const [row] = (yield step(`SELECT pending FROM dossier_watch_deliveries WHERE id = ?${forUpdate}`, [delivery.id])).rows;
      if (row === undefined) return;
      const pending = delivery.status === 'pending' ? 1 : 0;
      yield step('UPDATE dossier_watch_deliveries SET pending = ?, record = ? WHERE id = ?', [
        pending,
        JSON.stringify(delivery),
        delivery.id,
      ]);
      if (Number(row.pending) === pending) return;
      yield* raise(DELIVERY_CHANGES, insertIgnore.start, insertIgnore.end);
      yield* trim(delivery.watchId);
    });
  }

  /** Deletes the deliveries of a watch that are over and older than its newest {@link DELIVERIES_LISTED}. */
  private *trim(watchId: string): SqlWork<void> {
    const [oldest] = (yield step(
      'SELECT seq FROM dossier_watch_deliveries WHERE watch_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
      [watchId, DELIVERIES_LISTED - 1],
    )).rows;
    if (oldest === undefined) return;
    yield step('DELETE FROM dossier_watch_deliveries WHERE watch_id = ? AND seq < ? AND pending = 0', [watchId, oldest.seq]);
  }

  async forgetDelivery(delivery: { id: string; watchId: string }): Promise<void> {
    const { forUpdate, insertIgnore } = this.tables.dialect;
    await this.sql.transaction(function* () {
      const [row] = (yield step(`SELECT pending FROM dossier_watch_deliveries WHERE id = ?${forUpdate}`, [delivery.id])).rows;
      if (row === undefined) return;
      yield step('DELETE FROM dossier_watch_deliveries WHERE id = ?', [delivery.id]);
      if (Number(row.pending) === 1) yield* raise(DELIVERY_CHANGES, insertIgnore.start, insertIgnore.end);
    });
  }

  async forgetDeliveriesOver(watchId: string): Promise<string[]> {
    return this.sql.transaction(function* () {
      yield step('DELETE FROM dossier_watch_deliveries WHERE watch_id = ? AND pending = 0', [watchId]);
      return (yield step('SELECT id FROM dossier_watch_deliveries WHERE watch_id = ?', [watchId])).rows.map((row) =>
        String(row.id),
      );
    });
  }

  async getDelivery(id: string): Promise<StoredDelivery | undefined> {
    const [row] = await this.sql.read('SELECT record FROM dossier_watch_deliveries WHERE id = ?', [id]);
    return row === undefined ? undefined : recordOf<StoredDelivery>(row);
  }

  async deliveries(watchId: string): Promise<StoredDelivery[]> {
    const rows = await this.sql.read('SELECT record FROM dossier_watch_deliveries WHERE watch_id = ? ORDER BY seq DESC LIMIT ?', [
      watchId,
      DELIVERIES_LISTED,
    ]);
    return rows.map((row) => recordOf<StoredDelivery>(row));
  }

  async deliveryIds(watchId: string): Promise<readonly string[]> {
    const rows = await this.sql.read('SELECT id FROM dossier_watch_deliveries WHERE watch_id = ? ORDER BY seq', [watchId]);
    return rows.map((row) => String(row.id));
  }

  async pendingDeliveries(): Promise<StoredDelivery[]> {
    const rows = await this.sql.read('SELECT record FROM dossier_watch_deliveries WHERE pending = 1 ORDER BY seq', []);
    return rows.map((row) => recordOf<StoredDelivery>(row));
  }

  /** Moves what older releases kept as key-value records, if that was not done yet ({@link moveKeyvRecords}). */
  async adoptOldLists(): Promise<number> {
    await this.sql.ready();
    const moved = this.moved;
    this.moved = 0;
    return moved;
  }

  /** One change, by itself where the backend runs one so ({@link WatchTables.write}), else in a transaction. */
  private async write(sql: string, values: unknown[]): Promise<void> {
    if (this.tables.write === undefined) {
      await this.sql.transaction(function* () {
        yield step(sql, values);
      });
      return;
    }
    if (!this.sql.done) await this.sql.ready();
    await this.tables.write(this.sql.placed(sql), values);
  }

  /**
   * Moves the watches and deliveries that releases before these tables kept as key-value records
   * (`<namespace>:watch:<id>`, `<namespace>:delivery:<id>`, with lists beside them: leased sets, and before
   * those append-only slots) into the tables. The records are what counts: a watch is moved whether or
   * not a list held it, so that a store a killed process left half done (a watch missing from its owner's
   * list, an id listed with no record) comes out whole; each key's count is then counted from the watches
   * that exist, and every moved watch is noted unscheduled, so that the next start of the engine
   * schedules it (scheduling one it has is harmless). A batch at a time, inserted (an id already there is
   * skipped) and then deleted from `keyv`, so that a move cut off goes on where it stopped and two
   * processes moving at once move each record once. The lists and their counters, which nothing reads
   * any more, are deleted after.
   */
  private async moveKeyvRecords(): Promise<void> {
    const { namespace, dialect } = this.tables;
    const { start, end } = dialect.insertIgnore;
    const key = dialect.keyvKey;
    const placed = this.sql.placed;
    const exists = await this.tables.read(
      placed(`SELECT 1 AS found FROM keyv WHERE ${key} >= ? AND ${key} < ? LIMIT 1`),
      prefixRange(`${namespace}:watch`),
    );
    if (exists.length === 0) return; // nothing of an older release: a start costs this one read
    let unreadable = 0;
    for (const kind of ['watch', 'delivery'] as const) {
      // Read whole, then written in order of creation: the tables' order is that of `seq`.
      const found: OldWatchRecord<WatchRecord | StoredDelivery>[] = [];
      for (let after = ''; ;) {
        const batch = await this.tables.read(
          placed(`SELECT ${key} AS name, value FROM keyv WHERE ${key} > ? AND ${key} < ? ORDER BY ${key} LIMIT ?`),
          [after === '' ? `${namespace}:${kind}:` : after, prefixRange(`${namespace}:${kind}:`)[1], MIGRATION_BATCH * 5],
        );
        if (batch.length === 0) break;
        after = String(batch.at(-1)!.name);
        for (const row of batch) {
          const record = oldRecord(String(row.value), kind);
          if (record !== undefined) found.push({ name: String(row.name), record });
          else unreadable += 1;
        }
      }
      byCreation(found);
      for (let from = 0; from < found.length; from += MIGRATION_BATCH) {
        const batch = found.slice(from, from + MIGRATION_BATCH);
        await this.tables.transaction(function* () {
          if (kind === 'watch') {
            const watches = batch.map(({ record }) => record as WatchRecord);
            yield step(
              placed(`${start} dossier_watches (id, owner, key_id, record) VALUES ${rowsOf(watches.length, 4)}${end}`),
              watches.flatMap((watch) => [watch.id, watch.owner, watch.keyId, JSON.stringify(watch)]),
            );
            yield step(
              placed(`${start} dossier_watch_unscheduled (id) VALUES ${rowsOf(watches.length, 1)}${end}`),
              watches.map(({ id }) => id),
            );
          } else {
            const deliveries = batch.map(({ record }) => record as StoredDelivery);
            yield step(
              placed(
                `${start} dossier_watch_deliveries (id, watch_id, pending, record) VALUES ${rowsOf(deliveries.length, 4)}${end}`,
              ),
              deliveries.flatMap((delivery) => [
                delivery.id,
                delivery.watchId,
                delivery.status === 'pending' ? 1 : 0,
                JSON.stringify(delivery),
              ]),
            );
          }
          yield step(
            placed(`DELETE FROM keyv WHERE ${key} IN (${batch.map(() => '?').join(', ')})`),
            batch.map(({ name }) => name),
          );
        });
      }
      if (kind === 'watch') this.moved += found.length;
    }
    // The lists of older releases (and of the append-only slots before them), and their counters.
    for (const list of OLD_WATCH_LISTS) {
      await this.tables.transaction(function* () {
        yield step(placed(`DELETE FROM keyv WHERE ${key} >= ? AND ${key} < ?`), prefixRange(`${namespace}:${list}`));
        yield step(placed('DELETE FROM dossier_counters WHERE name >= ? AND name < ? AND name NOT IN (?, ?)'), [
          ...prefixRange(list),
          WATCH_CHANGES,
          DELIVERY_CHANGES,
        ]);
      });
    }
    // Each key's count from the watches that exist, whatever the lists said.
    await this.tables.transaction(function* () {
      yield step(placed('DELETE FROM dossier_watch_keys'), []);
      yield step(
        placed('INSERT INTO dossier_watch_keys (key_id, watches) SELECT key_id, count(*) FROM dossier_watches GROUP BY key_id'),
        [],
      );
      yield* raise(WATCH_CHANGES, start, end, placed);
      yield* raise(DELIVERY_CHANGES, start, end, placed);
    });
    if (unreadable > 0) {
      this.tables.logger?.warn('Some key-value records of watches could not be read, and were left where they are.', {
        records: unreadable,
      });
    }
  }
}

/**
 * Raises a counter of changes by one; `placed` writes the placeholders for a transaction run directly on
 * the tables (the store's own transactions place them afterwards).
 */
function* raise(name: string, start: string, end: string, placed = (sql: string): string => sql): SqlWork<void> {
  // The update first, and the row made only when there is none (once a store): every change of the
  // watches raises this one counter, and an insert that finds it would take a shared lock before the
  // update's, which two changes at once turn into a deadlock on InnoDB.
  const add = step(placed('UPDATE dossier_counters SET value = value + 1 WHERE name = ?'), [name]);
  if ((yield add).changes > 0) return;
  yield step(placed(`${start} dossier_counters (name, value, expires_at) VALUES (?, 0, NULL)${end}`), [name]);
  yield add;
}

/** The `VALUES` of `count` rows of `width` placeholders each. */
function rowsOf(count: number, width: number): string {
  const row = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  return Array.from({ length: count }, () => row).join(', ');
}

/** The lower and upper bound of the names that start with `prefix` (its last character raised by one). */
function prefixRange(prefix: string): [string, string] {
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)];
}

function recordOf<T>(row: Record<string, unknown>): T {
  return JSON.parse(String(row.record)) as T;
}
