import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { createTable, type SqlQuery } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';

/** Settings of {@link PostgresKeyvStore}. */
export interface PostgresKeyvStoreOptions {
  /** The table of the values: `key` and `value` columns, the layout `@keyv/postgres` used. @default 'keyv' */
  table?: string;
  /** Rows read per step of `iterator()`. @default 100 */
  iterationLimit?: number;
}

interface Row {
  key: string;
  value: string;
}

/**
 * A Keyv store on a PostgreSQL pool that its backend owns (`@keyv/postgres` keeps one pool per process
 * for every instance, which the first `disconnect()` ends under the others' feet). Statements go
 * through the backend's `query`, which prepares them by name and holds them to its deadline. It keeps
 * `@keyv/postgres`'s table layout, so existing databases are read as they are.
 */
export class PostgresKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  /** Keyv reads `opts.dialect` to know that this store can iterate. */
  readonly opts: { dialect: 'postgres'; url: string; table: string; iterationLimit: number };
  /** Set by Keyv: the prefix of this instance's keys, which `clear()` and `iterator()` stay inside. */
  namespace?: string;
  readonly ttlSupport = false;
  private readonly table: SetUpOnce;

  /** @param query runs one statement on the backend's pool; @param close ends that pool. */
  constructor(
    private readonly query: SqlQuery,
    private readonly close: () => Promise<void>,
    options: PostgresKeyvStoreOptions = {},
  ) {
    super();
    const table = options.table ?? 'keyv';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`Invalid table name "${table}".`);
    this.opts = { dialect: 'postgres', url: 'postgres://', table, iterationLimit: options.iterationLimit ?? 100 };
    this.table = new SetUpOnce(() => createTable(query, `${table} (key VARCHAR(255) PRIMARY KEY, value TEXT)`));
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const rows = await this.run(`SELECT value FROM ${this.opts.table} WHERE key = $1`, [key]);
    return rows[0]?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const rows = await this.run(`SELECT key, value FROM ${this.opts.table} WHERE key = ANY($1)`, [keys]);
    const byKey = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => byKey.get(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown): Promise<boolean> {
    await this.run(
      `INSERT INTO ${this.opts.table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [key, value],
    );
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${this.opts.table} WHERE key = $1 RETURNING key`, [key])).length > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return (await this.run(`DELETE FROM ${this.opts.table} WHERE key = ANY($1) RETURNING key`, [keys])).length > 0;
  }

  async has(key: string): Promise<boolean> {
    return (await this.run(`SELECT 1 AS key FROM ${this.opts.table} WHERE key = $1`, [key])).length > 0;
  }

  async clear(): Promise<void> {
    if (this.namespace) {
      await this.run(`DELETE FROM ${this.opts.table} WHERE starts_with(key, $1)`, [`${this.namespace}:`]);
    } else {
      await this.run(`DELETE FROM ${this.opts.table}`, []);
    }
  }

  /** Every `[key, value]` of `namespace` (every key without one), in key order, a page at a time. */
  async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
    const prefix = namespace ? `${namespace}:` : '';
    let after: string | null = null;
    for (;;) {
      const rows: Row[] = await this.run(
        `SELECT key, value FROM ${this.opts.table} WHERE starts_with(key, $1) AND ($2::text IS NULL OR key > $2) ORDER BY key LIMIT $3`,
        [prefix, after, this.opts.iterationLimit],
      );
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < this.opts.iterationLimit) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  async disconnect(): Promise<void> {
    await this.close();
  }

  private async run(sql: string, parameters: unknown[]): Promise<Row[]> {
    if (!this.table.done) await this.table.run();
    return (await this.query(sql, parameters)) as Row[];
  }
}
