import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

/**
 * A MySQL/MariaDB database of a test's own, made in the server of `DOSSIER_TEST_MYSQL` (its name that of
 * the URL's database, the test's label and a random suffix), read and written through one connection of
 * its own, and dropped by {@link close}.
 */
export class MysqlDatabase {
  /** The URL of the database, for a store on it. */
  readonly url: string;

  private constructor(
    private readonly admin: mysql.Connection,
    private readonly name: string,
    server: string,
  ) {
    const url = new URL(server);
    url.pathname = `/${name}`;
    this.url = url.href;
  }

  /**
   * A new database on `server` (a `mysql://` URL), named after `label`; with `multipleStatements`, its
   * connection runs several statements in one query.
   */
  static async open(server: string, label: string, options: { multipleStatements?: boolean } = {}): Promise<MysqlDatabase> {
    const base = new URL(server).pathname.slice(1) || 'test';
    const name = `${base}_${label}_${randomBytes(4).toString('hex')}`;
    const admin = await mysql.createConnection({ uri: server, charset: 'utf8mb4', ...options });
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${name}`);
    return new MysqlDatabase(admin, name, server);
  }

  async query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    return (await this.admin.query(sql, values))[0] as T[];
  }

  async close(): Promise<void> {
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.name}`);
    await this.admin.end();
  }
}
