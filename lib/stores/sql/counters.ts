import type { Clock } from '../../ports/clock.js';
import type { CounterStore, IncrementOptions } from '../../ports/counter-store.js';
import { StoreGuard } from '../shared/guard.js';
import { perTurn } from '../shared/per-turn.js';
import { SetUpOnce } from '../shared/set-up-once.js';

/** Runs one statement with positional parameters and returns its rows. */
export type SqlQuery = (sql: string, parameters: unknown[]) => Promise<unknown[]>;

/** What differs between the SQL of SQLite, PostgreSQL and MySQL, for {@link SqlCounterStore}. */
export interface SqlDialect {
  /** How the n-th (1-based) parameter is written: `?` for SQLite and MySQL, `$n` for PostgreSQL. */
  placeholder(n: number): string;
  /** Where `IN (…)` finds a list of strings given as one parameter `?`, and that parameter's value. */
  strings: { sql: string; value(strings: string[]): unknown };
  /** The type of a column of names that is a primary key, compared byte for byte. */
  nameType: string;
  /** What follows the columns of a `CREATE TABLE`. */
  tableOptions: string;
}

const JSON_TEXT = (strings: string[]): string => JSON.stringify(strings);

export const SQLITE_DIALECT: SqlDialect = {
  placeholder: () => '?',
  strings: { sql: 'SELECT value FROM json_each(?)', value: JSON_TEXT },
  nameType: 'TEXT',
  tableOptions: '',
};

export const POSTGRES_DIALECT: SqlDialect = {
  placeholder: (n) => `$${n}`,
  strings: { sql: 'SELECT json_array_elements_text(?::json)', value: JSON_TEXT },
  nameType: 'TEXT',
  tableOptions: '',
};

/**
 * mysql2 writes an array given for one `?` as the list of its values. Names are binary: MySQL's binary
 * collations of text ignore trailing spaces, so that `a` and `a ` would be one key.
 */
export const MYSQL_DIALECT: SqlDialect = {
  placeholder: () => '?',
  strings: { sql: '?', value: (strings) => strings },
  nameType: 'VARBINARY(1024)',
  tableOptions: ' ENGINE = InnoDB DEFAULT CHARSET = utf8mb4',
};

/** Counter names read by one statement of {@link SqlCounterStore.getMany}. */
const READ_CHUNK = 5000;

/** A counter that has not expired, given the time now as the next parameter. */
const LIVE = '(expires_at IS NULL OR expires_at > ?)';

/**
 * Adds one to a counter below its ceiling, in one atomic statement. Parameters: name, expiry (or null),
 * now, ceiling, now. Returns the new value, or no row when the ceiling refused it.
 */
export const INCREMENT_SQL = `INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, 1, ?)
       ON CONFLICT (name) DO UPDATE SET
         value = CASE WHEN dossier_counters.expires_at <= ? THEN 1 ELSE dossier_counters.value + 1 END,
         expires_at = excluded.expires_at
       WHERE dossier_counters.value < ? OR dossier_counters.expires_at <= ?
       RETURNING value`;

/** A counter's live value (no row: 0). Parameters: name, now. */
export const GET_SQL = `SELECT value FROM dossier_counters WHERE name = ? AND ${LIVE}`;

/**
 * Counters and leases in SQL tables (SQLite or PostgreSQL; MySQL writes two of its statements its own
 * way): each change is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` statement, which the database
 * runs atomically even when several processes share it. The `WHERE` of the update is the ceiling (for a lease, its expiry): when it refuses, no row is
 * returned and nothing changes. A counter past its `expires_at` counts as 0.
 */
export class SqlCounterStore implements CounterStore {
  private readonly tables = new SetUpOnce(() =>
    this.guard.run(async () => {
      const { nameType, tableOptions } = this.dialect;
      const name = `name ${nameType} PRIMARY KEY`;
      await createTable(this.query, `dossier_counters (${name}, value BIGINT NOT NULL, expires_at BIGINT)${tableOptions}`);
      await createTable(this.query, `dossier_leases (${name}, owner TEXT NOT NULL, expires_at BIGINT NOT NULL)${tableOptions}`);
    }),
  );
  /** Each statement in the dialect's placeholders. */
  private readonly placed: (sql: string) => string;

  /**
   * @param query runs one statement on the store's own connection or pool; @param dialect says how the
   * database writes what differs; @param clock says when a counter expired; @param guard holds every
   * statement to the backend's deadline.
   */
  constructor(
    private readonly query: SqlQuery,
    private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    protected readonly guard: StoreGuard = new StoreGuard(),
  ) {
    this.placed = placeholders(dialect);
    // A failed start is reported by the first call that awaits it, not as an unhandled rejection.
    this.tables.run().catch(() => {});
  }

  async increment(name: string, options: IncrementOptions = {}): Promise<number | null> {
    const ceiling = options.ceiling ?? Number.MAX_SAFE_INTEGER;
    if (ceiling <= 0) return null;
    const now = this.now();
    const rows = await this.run(INCREMENT_SQL, [
      name,
      options.expiresAt === undefined ? null : Math.ceil(options.expiresAt),
      now,
      ceiling,
      now,
    ]);
    return rows[0] === undefined ? null : Number(rows[0].value);
  }

  async decrement(name: string): Promise<void> {
    await this.run(`UPDATE dossier_counters SET value = value - 1 WHERE name = ? AND value > 0 AND ${LIVE}`, [name, this.now()]);
  }

  async get(name: string): Promise<number> {
    const rows = await this.run(GET_SQL, [name, this.now()]);
    return rows[0] === undefined ? 0 : Number(rows[0].value);
  }

  async getMany(names: string[]): Promise<number[]> {
    return names.length === 0 ? [] : this.readPerTurn(names);
  }

  /**
   * The reads of one turn in a few statements (the admin list reads every key's counters at once): their
   * names, each once, {@link READ_CHUNK} to a statement, the statements side by side on the pool.
   */
  private readonly readPerTurn = perTurn(async (lists: string[][]): Promise<number[][]> => {
    const names = [...new Set(lists.flat())];
    const now = this.now();
    const sql = `SELECT name, value FROM dossier_counters WHERE name IN (${this.dialect.strings.sql}) AND ${LIVE}`;
    const reads: Promise<{ value: number | string }[]>[] = [];
    for (let start = 0; start < names.length; start += READ_CHUNK) {
      reads.push(this.run(sql, [this.dialect.strings.value(names.slice(start, start + READ_CHUNK)), now]));
    }
    const rows = (await Promise.all(reads)).flat() as { name: string; value: number | string }[];
    const values = new Map(rows.map((row) => [row.name, Number(row.value)]));
    return lists.map((list) => list.map((name) => values.get(name) ?? 0));
  });

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const rows = await this.run(
      `INSERT INTO dossier_leases (name, owner, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE dossier_leases.expires_at <= ? OR dossier_leases.owner = excluded.owner
       RETURNING owner`,
      [name, owner, now + Math.ceil(ttlMs), now],
    );
    return rows.length === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.run('DELETE FROM dossier_leases WHERE name = ? AND owner = ?', [name, owner]);
  }

  /** Whole milliseconds: a BIGINT column takes no fraction (a host's clock may give one). */
  protected now(): number {
    return Math.floor(this.clock.now());
  }

  /** The connection belongs to the Keyv store, which closes it. */
  async close(): Promise<void> {}

  private async run(sql: string, parameters: unknown[]): Promise<{ value: number | string }[]> {
    if (!this.tables.done) await this.tables.run();
    const text = this.placed(sql);
    return this.guard.run(() => this.query(text, parameters) as Promise<{ value: number | string }[]>);
  }

  /** Resolves once the tables exist. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async tablesExist(): Promise<void> {
    if (!this.tables.done) await this.tables.run();
  }
}

/**
 * Rewrites statements written with `?` in the placeholders of `dialect`, each text once (a statement
 * holds no `?` but its placeholders).
 */
export function placeholders(dialect: SqlDialect): (sql: string) => string {
  const texts = new Map<string, string>();
  return (sql) => {
    let text = texts.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => dialect.placeholder(++n));
      texts.set(sql, text);
    }
    return text;
  };
}

/** `CREATE TABLE IF NOT EXISTS`, safe when several sessions run it at once. */
export async function createTable(query: SqlQuery, definition: string): Promise<void> {
  const sql = `CREATE TABLE IF NOT EXISTS ${definition}`;
  try {
    await query(sql, []);
  } catch (error) {
    // Two PostgreSQL sessions creating the table at once: one loses the race on the catalog (23505);
    // the table exists all the same, so asking again succeeds.
    if ((error as { code?: string }).code !== '23505') throw error;
    await query(sql, []);
  }
}
