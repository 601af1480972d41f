import type mysql from 'mysql2';
import { loadOptionalPeer } from '../shared/optional-peer.js';

/** The module of the MySQL driver. */
export type MysqlDriver = typeof mysql;

/**
 * The MySQL driver, `mysql2`: an optional peer dependency.
 * @throws DossierError `ERR_CONFIG_INVALID` with the `npm install` line to run when it is not installed.
 */
export function loadMysqlDriver(): MysqlDriver {
  return loadOptionalPeer<MysqlDriver>('mysql2', 'A mysql:// or mariadb:// store');
}

/** What a statement that changes rows answers. */
export interface MysqlWritten {
  affectedRows: number;
  /** The last `AUTO_INCREMENT` id, or the value given to `LAST_INSERT_ID(expr)`. */
  insertId: number;
}

/** Runs one statement (written with `?`, each replaced by its value, an array by the list of its values). */
export type MysqlStatement = (sql: string, values: unknown[]) => Promise<unknown>;

/** Settings of a {@link MysqlConnection}. */
export interface MysqlConnectionOptions {
  /** `mysql://…` or `mariadb://…`. */
  url: string;
  /** The deadline of one call, waiting for a connection included, in milliseconds. */
  timeoutMs: number;
  /** Connections in the pool. */
  poolSize: number;
}

/** InnoDB's answer to the victim of a deadlock, whose transaction it rolled back. */
const ER_LOCK_DEADLOCK = 1213;

/**
 * How long past a call's deadline a COMMIT sent in time is waited for, to hear whether it committed: as
 * long again as the deadline, and this margin.
 */
const SETTLE_MARGIN_MS = 500;

const LATE = Symbol('late');

/** `work`, or {@link LATE} when it has not settled within `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<typeof LATE>((resolve) => (timer = setTimeout(resolve, Math.max(ms, 0), LATE))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A MySQL or MariaDB database, on a pool this object owns, every call held to a deadline.
 *
 * mysql2 neither stops a statement the server is slow to answer nor lets go of it: here a call that is
 * late is answered with a failure at its deadline, its connection is dropped, and its server thread
 * killed (`KILL`, on a connection of its own), which stops the statement and rolls back its transaction.
 * So that such a call never commits afterwards, every write runs in an explicit transaction whose
 * COMMIT is sent only while the deadline has not passed; a COMMIT sent in time and answered late is
 * waited for, so that its caller hears whether it committed (as long again as the deadline: a server
 * that says nothing by then is taken for gone). The server enforces the deadline too, on each session:
 * a lock is waited for no longer (`innodb_lock_wait_timeout`), nor, on MariaDB, a statement run
 * (`max_statement_time`), as a last resort for one that reached it late.
 */
export class MysqlConnection {
  private readonly pool: mysql.Pool;
  /** Connections of their own for the kills: the pool's may all be stuck behind what is to be killed. */
  private readonly killer: mysql.Pool;
  /** Every connection of the pool, so that closing can drop those a frozen server keeps. */
  private readonly connections = new Set<mysql.PoolConnection>();

  constructor(
    driver: MysqlDriver,
    private readonly options: MysqlConnectionOptions,
  ) {
    const common = {
      uri: options.url,
      connectTimeout: options.timeoutMs,
      charset: 'utf8mb4',
      // Rows changed, not rows found: an upsert that changes nothing answers 0.
      flags: ['-FOUND_ROWS'],
      // Numbers as numbers (counters and ids stay far below 2^53).
      supportBigNumbers: false,
      // Binary strings (names compared byte for byte) as text, as they were written.
      typeCast: (field: { type: string; string(encoding?: string): string | null }, next: () => unknown) =>
        field.type === 'VAR_STRING' ? field.string('utf8') : next(),
    };
    this.pool = driver.createPool({ ...common, connectionLimit: options.poolSize, multipleStatements: true });
    this.killer = driver.createPool({ ...common, connectionLimit: 2, queueLimit: 100, idleTimeout: 5000, maxIdle: 0 });
    const session = sessionSql(options.timeoutMs);
    this.pool.on('connection', (connection) => {
      this.connections.add(connection);
      // Queued before the first statement of the connection; a failure fails that one too.
      connection.query(session, () => {});
    });
  }

  /**
   * Runs one statement outside a transaction: a read, or a change of the schema (which MySQL commits by
   * itself). @throws the driver's error, or a late one
   */
  query(sql: string, values: unknown[]): Promise<unknown[]> {
    return this.call(async (run) => (await run(sql, values)) as unknown[]);
  }

  /**
   * Runs `work` in a transaction on one connection, and commits if it succeeded within the deadline.
   * The statements `work` runs are sent one by one (the first with the start of the transaction); each
   * answers what mysql2 answers for its SQL (an array of answers for several statements). A transaction
   * that InnoDB chose as a deadlock's victim (and rolled back) is run again while time remains.
   * @param since when the call was asked (`performance.now()`), which its deadline counts from. @default now
   * @throws the driver's error, or a late one; nothing is committed then.
   */
  async transaction<T>(work: (run: MysqlStatement) => Promise<T>, since = performance.now()): Promise<T> {
    const deadline = since + this.options.timeoutMs;
    for (;;) {
      try {
        return await this.call(async (run, remaining) => {
          let started = false;
          const result = await work(async (sql, values) => {
            if (started) return run(sql, values);
            started = true;
            const [, ...answers] = (await run(`START TRANSACTION; ${sql}`, values)) as unknown[];
            return answers.length === 1 ? answers[0] : answers;
          });
          if (!started) return result;
          if (remaining() <= 0) throw late(this.options.timeoutMs);
          await run('COMMIT', [], this.options.timeoutMs + SETTLE_MARGIN_MS);
          return result;
        }, deadline);
      } catch (error) {
        if ((error as { errno?: number }).errno !== ER_LOCK_DEADLOCK || performance.now() >= deadline) throw error;
      }
    }
  }

  /** Runs statements in one round trip, in a transaction. @throws as {@link transaction} */
  write(sql: string, values: unknown[]): Promise<unknown> {
    return this.transaction((run) => run(sql, values));
  }

  /** Closes every connection; those a frozen server keeps are dropped at the deadline. */
  async close(): Promise<void> {
    const ending = Promise.all([this.end(this.pool), this.end(this.killer)]);
    if ((await within(ending, this.options.timeoutMs)) === LATE) {
      for (const connection of this.connections) connection.destroy();
    }
  }

  private end(pool: mysql.Pool): Promise<void> {
    return new Promise((resolve) => pool.end(() => resolve()));
  }

  /**
   * Runs `use` on a connection of the pool, under one deadline (from now by default). `run` sends a statement and
   * answers it, or fails once the deadline (plus `grace`) has passed; a connection that failed anything
   * is dropped, and its server thread killed.
   */
  private async call<T>(
    use: (run: (sql: string, values: unknown[], grace?: number) => Promise<unknown>, remaining: () => number) => Promise<T>,
    deadline = performance.now() + this.options.timeoutMs,
  ): Promise<T> {
    const { timeoutMs } = this.options;
    const remaining = (): number => deadline - performance.now();
    const acquiring = new Promise<mysql.PoolConnection>((resolve, reject) =>
      this.pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
    );
    const connection = await within(acquiring, remaining());
    if (connection === LATE) {
      acquiring.then(
        (late) => late.release(),
        () => {},
      );
      throw new Error(`No MySQL connection was free within ${timeoutMs} ms.`);
    }
    const run = async (sql: string, values: unknown[], grace = 0): Promise<unknown> => {
      if (remaining() <= 0) throw late(timeoutMs);
      const running = new Promise<unknown>((resolve, reject) =>
        connection.query(sql, values, (error, results) => (error ? reject(error) : resolve(results))),
      );
      const answer = await within(running, remaining() + grace);
      if (answer === LATE) {
        running.catch(() => {});
        throw late(timeoutMs);
      }
      return answer;
    };
    try {
      const result = await use(run, remaining);
      connection.release();
      return result;
    } catch (error) {
      this.drop(connection);
      throw error;
    }
  }

  /** Drops a connection that failed, and kills its server thread: what it ran stops, its transaction rolls back. */
  private drop(connection: mysql.PoolConnection): void {
    const { threadId } = connection;
    this.connections.delete(connection);
    connection.destroy();
    if (threadId !== null) this.killer.query('KILL ?', [threadId], () => {});
  }
}

/**
 * The settings of each session: SQL as written here (no ANSI quotes, backslash escapes, which mysql2's
 * escaping relies on), read committed, and the server's own deadlines.
 */
function sessionSql(timeoutMs: number): string {
  // MySQL skips the /*M! … */ part: it has no max_statement_time (its max_execution_time holds only SELECTs).
  return (
    `SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION', ` +
    `innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(timeoutMs / 1000))}` +
    `/*M!100100 , max_statement_time = ${(timeoutMs / 1000).toFixed(3)} */; ` +
    'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'
  );
}

function late(timeoutMs: number): Error {
  return new Error(`MySQL did not answer within ${timeoutMs} ms.`);
}
