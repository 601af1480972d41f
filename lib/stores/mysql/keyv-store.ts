import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { createTable, MYSQL_DIALECT } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';
import { likeLiteral } from '../sql/documents.js';
import type { MysqlConnection, MysqlWritten } from './connection.js';

/** Settings of {@link MysqlKeyvStore}. */
export interface MysqlKeyvStoreOptions {
  /** The table of the values: `key` and `value` columns. @default 'keyv' */
  table?: string;
  /** Rows read per step of `iterator()`. @default 100 */
  iterationLimit?: number;
}

interface Row {
  key: string;
  value: string;
}

/**
 * A Keyv store on a MySQL or MariaDB connection that its backend owns. Keys are compared byte for byte
 * (a binary column: no collation folds case or ignores trailing spaces); every call is held to the
 * backend's deadline, and every write is a transaction (see {@link MysqlConnection}).
 */
export class MysqlKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  /** Keyv reads `opts.dialect` to know that this store can iterate. */
  readonly opts: { dialect: 'mysql'; url: string; table: string; iterationLimit: number };
  /** Set by Keyv: the prefix of this instance's keys, which `clear()` and `iterator()` stay inside. */
  namespace?: string;
  readonly ttlSupport = false;
  private readonly table: SetUpOnce;

  /** @param close ends the connection. */
  constructor(
    private readonly connection: MysqlConnection,
    private readonly close: () => Promise<void>,
    options: MysqlKeyvStoreOptions = {},
  ) {
    super();
    const table = options.table ?? 'keyv';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`Invalid table name "${table}".`);
    this.opts = { dialect: 'mysql', url: 'mysql://', table, iterationLimit: options.iterationLimit ?? 100 };
    this.table = new SetUpOnce(() =>
      createTable(
        (sql, values) => connection.query(sql, values),
        `${table} (\`key\` ${MYSQL_DIALECT.nameType} PRIMARY KEY, value LONGTEXT)${MYSQL_DIALECT.tableOptions}`,
      ),
    );
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const rows = await this.read(`SELECT value FROM ${this.opts.table} WHERE \`key\` = ?`, [key]);
    return rows[0]?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const rows =
      keys.length === 0 ? [] : await this.read(`SELECT \`key\`, value FROM ${this.opts.table} WHERE \`key\` IN (?)`, [keys]);
    const byKey = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => byKey.get(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown): Promise<boolean> {
    await this.write(
      `INSERT INTO ${this.opts.table} (\`key\`, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)`,
      [key, value],
    );
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.write(`DELETE FROM ${this.opts.table} WHERE \`key\` = ?`, [key])).affectedRows > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    if (keys.length === 0) return false;
    return (await this.write(`DELETE FROM ${this.opts.table} WHERE \`key\` IN (?)`, [keys])).affectedRows > 0;
  }

  async has(key: string): Promise<boolean> {
    return (await this.read(`SELECT 1 AS value FROM ${this.opts.table} WHERE \`key\` = ?`, [key])).length > 0;
  }

  async clear(): Promise<void> {
    if (this.namespace) {
      await this.write(`DELETE FROM ${this.opts.table} WHERE \`key\` LIKE ?`, [`${likeLiteral(`${this.namespace}:`)}%`]);
    } else {
      await this.write(`DELETE FROM ${this.opts.table}`, []);
    }
  }

  /** Every `[key, value]` of `namespace` (every key without one), in key order, a page at a time. */
  async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
    const pattern = `${likeLiteral(namespace ? `${namespace}:` : '')}%`;
    let after = '';
    for (;;) {
      const rows = await this.read(
        `SELECT \`key\`, value FROM ${this.opts.table} WHERE \`key\` LIKE ? AND \`key\` > ? ORDER BY \`key\` LIMIT ?`,
        [pattern, after, this.opts.iterationLimit],
      );
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < this.opts.iterationLimit) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  /** Resolves once the table exists (admissions read it directly). */
  async tableExists(): Promise<void> {
    if (!this.table.done) await this.table.run();
  }

  async disconnect(): Promise<void> {
    await this.close();
  }

  private async read(sql: string, values: unknown[]): Promise<Row[]> {
    if (!this.table.done) await this.table.run();
    return (await this.connection.query(sql, values)) as Row[];
  }

  private async write(sql: string, values: unknown[]): Promise<MysqlWritten> {
    if (!this.table.done) await this.table.run();
    return (await this.connection.write(sql, values)) as MysqlWritten;
  }
}
