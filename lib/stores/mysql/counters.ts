import type { Clock } from '../../ports/clock.js';
import type { IncrementOptions } from '../../ports/counter-store.js';
import { MYSQL_DIALECT, SqlCounterStore } from '../sql/counters.js';
import type { MysqlConnection, MysqlWritten } from './connection.js';

/**
 * Counters and leases in MySQL or MariaDB tables: the statements of {@link SqlCounterStore}, each write
 * in a transaction, but for the two that MySQL writes its own way, having no `RETURNING` (and MySQL no
 * `ON CONFLICT … WHERE`). An increment makes the counter's row if it is missing (which locks it), then
 * raises it in an `UPDATE` whose `WHERE` is the ceiling, handing the new value out through
 * `LAST_INSERT_ID(expr)`; a lease is an upsert that changes the row only when the lease has expired.
 * Rows changed (not found) tell what happened.
 */
export class MysqlCounterStore extends SqlCounterStore {
  constructor(
    private readonly connection: MysqlConnection,
    clock: Clock,
  ) {
    super(
      async (sql, values) => {
        if (/^\s*(SELECT|CREATE)\b/i.test(sql)) return connection.query(sql, values);
        await connection.write(sql, values);
        return [];
      },
      MYSQL_DIALECT,
      clock,
    );
  }

  override async increment(name: string, options: IncrementOptions = {}): Promise<number | null> {
    const ceiling = options.ceiling ?? Number.MAX_SAFE_INTEGER;
    if (ceiling <= 0) return null;
    const expiresAt = options.expiresAt === undefined ? null : Math.ceil(options.expiresAt);
    const now = this.now();
    const [, raised] = (await this.write(
      `INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, 0, ?) ON DUPLICATE KEY UPDATE name = name;
       UPDATE dossier_counters SET value = LAST_INSERT_ID(IF(expires_at <= ?, 1, value + 1)), expires_at = ?
       WHERE name = ? AND (value < ? OR expires_at <= ?)`,
      [name, expiresAt, now, expiresAt, name, ceiling, now],
    )) as MysqlWritten[];
    return raised!.affectedRows === 0 ? null : raised!.insertId;
  }

  override async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    // Whether the lease is taken (free, expired, or a renewal) is judged once, on the row as it was, and
    // kept in a session variable for the second column: MariaDB compares a TEXT column already assigned
    // in the same statement wrongly.
    const taken = (await this.write(
      `INSERT INTO dossier_leases (name, owner, expires_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE
         owner = IF(@dossier_lease_taken := (expires_at <= ? OR owner = VALUES(owner)), VALUES(owner), owner),
         expires_at = IF(@dossier_lease_taken, VALUES(expires_at), expires_at)`,
      [name, owner, now + Math.ceil(ttlMs), now],
    )) as MysqlWritten;
    return taken.affectedRows > 0;
  }

  private async write(sql: string, values: unknown[]): Promise<unknown> {
    await this.tablesExist();
    return this.guard.run(() => this.connection.write(sql, values));
  }
}
