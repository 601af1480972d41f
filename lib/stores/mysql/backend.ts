import Keyv from 'keyv';
import type { Backend } from '../../ports/backend.js';
import type { Clock } from '../../ports/clock.js';
import { assembleBackend } from '../shared/assemble.js';
import { StoreGuard } from '../shared/guard.js';
import { deserialize, serialize } from '../shared/serialize.js';
import { MysqlAdmissionStore } from './admission.js';
import { loadMysqlDriver, MysqlConnection } from './connection.js';
import { MysqlCounterStore } from './counters.js';
import { MysqlDocumentStore } from './documents.js';
import { MysqlKeySearch } from './key-search.js';
import { MysqlKeyvStore } from './keyv-store.js';
import { MYSQL_DIALECT } from '../sql/counters.js';
import { SqlWatchStore, watchSchema, type WatchDialect, type WatchTables } from '../sql/watches.js';
import type { SqlAnswer } from '../sql/work.js';
import { keySchema, SqlKeyRecords, type KeyDialect } from '../sql/keys.js';
import { sessionSchema, SqlSessionStore } from '../sql/sessions.js';

/** How MySQL writes what the tables of watches need: binary names (see MYSQL_DIALECT), indexes inline. */
const MYSQL_WATCHES: WatchDialect = {
  ...MYSQL_DIALECT,
  schema: watchSchema(
    {
      seq: 'BIGINT AUTO_INCREMENT PRIMARY KEY',
      id: 'VARBINARY(255)',
      name: 'VARBINARY(1024)',
      text: 'LONGTEXT',
      count: 'BIGINT',
    },
    true,
    MYSQL_DIALECT.tableOptions,
  ),
  insertIgnore: { start: 'INSERT IGNORE INTO', end: '' },
  forUpdate: ' FOR UPDATE',
  keyvKey: '`key`',
};

/** How MySQL writes what the tables of keys need: binary names and search text, compared byte for byte. */
const MYSQL_KEYS: KeyDialect = {
  ...MYSQL_WATCHES,
  schema: [
    ...keySchema(
      {
        seq: 'BIGINT AUTO_INCREMENT PRIMARY KEY',
        id: 'VARBINARY(255)',
        name: 'VARBINARY(1024)',
        short: 'VARCHAR(64)',
        searched: 'VARBINARY(4096)',
        text: 'LONGTEXT',
        count: 'BIGINT',
      },
      true,
      MYSQL_DIALECT.tableOptions,
    ),
    ...sessionSchema({ id: 'VARBINARY(255)', text: 'TEXT', count: 'BIGINT' }, true, MYSQL_DIALECT.tableOptions),
  ],
  contains: 'INSTR',
};

/** Settings of {@link createMysqlBackend}. */
export interface MysqlOptions {
  /** `mysql://USER:PASSWORD@HOST:PORT/DATABASE` or `mariadb://…`. */
  url: string;
  /** Keeps this backend's keys apart from others in the same database. @default 'dossier' */
  namespace?: string;
  /** Time source of counter and lease expiry. @default Date.now */
  clock?: Clock;
  /**
   * The deadline of one call, waiting for a connection included, in milliseconds. A call still running
   * then fails, and its statement is stopped on the server; a write commits only within it (see
   * {@link MysqlConnection}). @default 2000
   */
  timeoutMs?: number;
  /** Connections in the pool. @default 10 */
  poolSize?: number;
}

/**
 * A MySQL or MariaDB database (`mysql://…`, `mariadb://…`) through mysql2: values in the `keyv` table,
 * counters, leases and documents in their own tables, on one pool that this backend owns.
 */
export function createMysqlBackend(options: MysqlOptions): Backend {
  const connection = new MysqlConnection(loadMysqlDriver(), {
    url: options.url,
    timeoutMs: options.timeoutMs ?? 2000,
    poolSize: options.poolSize ?? 10,
  });
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= connection.close());
  const clock = options.clock ?? { now: () => Date.now() };
  const namespace = options.namespace ?? 'dossier';
  const counters = new MysqlCounterStore(connection, clock);
  const values = new MysqlKeyvStore(connection, close);
  const keyv = new Keyv({ store: values, namespace, serialize, deserialize });
  const documents = new MysqlDocumentStore(connection);
  const tables: Omit<WatchTables, 'dialect'> = {
    namespace,
    prepare: () => Promise.all([counters.tablesExist(), values.tableExists()]),
    read: async (sql, parameters) => (await connection.query(sql, parameters)) as Record<string, unknown>[],
    ddl: async (sql) => {
      await connection.query(sql, []);
    },
    transaction: (work) =>
      connection.transaction(async (run) => {
        const steps = work();
        let next = steps.next(undefined as never);
        while (next.done !== true) {
          const answer = (await run(next.value.sql, next.value.values)) as Record<string, unknown>[] | { affectedRows: number };
          const read: SqlAnswer = Array.isArray(answer)
            ? { rows: answer, changes: 0 }
            : { rows: [], changes: answer.affectedRows };
          next = steps.next(read);
        }
        return next.value;
      }),
  };
  const watches = new SqlWatchStore({ ...tables, dialect: MYSQL_WATCHES });
  const keys = new SqlKeyRecords({ ...tables, dialect: { ...MYSQL_KEYS, searchIndex: new MysqlKeySearch(tables) } });
  const sessions = new SqlSessionStore({ ...tables, dialect: MYSQL_KEYS }, keys, clock);
  const admissions = new MysqlAdmissionStore(connection, counters, keys, clock);
  // The connection holds every call to the deadline itself; the guard only names the failures.
  return assembleBackend({
    keyv,
    counters,
    clock,
    guard: new StoreGuard(),
    admissions,
    documents,
    watches,
    keys,
    sessions,
    release: close,
  });
}
