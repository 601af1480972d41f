// Some modules these stores import register with tsyringe, which needs the polyfill loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import keyvTestSuite, { keyvIteratorTests } from '@keyv/test-suite';
import Keyv from 'keyv';
import pg from 'pg';
import * as vitest from 'vitest';
import { loadMysqlDriver, MysqlConnection } from '../../lib/stores/mysql/connection.js';
import { MysqlKeyvStore } from '../../lib/stores/mysql/keyv-store.js';
import { preparedQuery } from '../../lib/stores/postgres/backend.js';
import { BetterSqliteKeyvStore } from '../../lib/stores/sqlite/keyv-store.js';
import { PostgresKeyvStore } from '../../lib/stores/postgres/keyv-store.js';
import { SqliteConnection } from '../../lib/stores/sqlite/connection.js';

// keyv's own adapter suite (`@keyv/test-suite`, written for vitest), run against the Keyv stores that
// Dossier writes itself: what any Keyv store must do, checked by the people who define it.

vitest.describe('BetterSqliteKeyvStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-keyv-'));
  const connection = new SqliteConnection({ path: join(dir, 'keyv.sqlite') });
  vitest.afterAll(() => {
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const store = () => new BetterSqliteKeyvStore(connection);
  keyvTestSuite(vitest, Keyv, store);
  keyvIteratorTests(vitest, Keyv, store);
});

const postgres = process.env.DOSSIER_TEST_POSTGRES;
vitest.describe.skipIf(!postgres)(`PostgresKeyvStore${postgres ? '' : ' (skipped: set DOSSIER_TEST_POSTGRES to run it)'}`, () => {
  const pool = new pg.Pool({ connectionString: postgres, max: 4 });
  // A table of this run's own: others test on the same server.
  const table = `keyv_suite_${randomBytes(6).toString('hex')}`;
  vitest.afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  });
  const store = () => new PostgresKeyvStore(preparedQuery(pool), async () => {}, { table });
  keyvTestSuite(vitest, Keyv, store);
  keyvIteratorTests(vitest, Keyv, store);
});

const mysql = process.env.DOSSIER_TEST_MYSQL;
vitest.describe.skipIf(!mysql)(`MysqlKeyvStore${mysql ? '' : ' (skipped: set DOSSIER_TEST_MYSQL to run it)'}`, () => {
  const connection = mysql ? new MysqlConnection(loadMysqlDriver(), { url: mysql, timeoutMs: 10_000, poolSize: 4 }) : undefined;
  // A table of this run's own: others test on the same server.
  const table = `keyv_suite_${randomBytes(6).toString('hex')}`;
  vitest.afterAll(async () => {
    await connection?.query(`DROP TABLE IF EXISTS ${table}`, []);
    await connection?.close();
  });
  const store = () => new MysqlKeyvStore(connection!, async () => {}, { table });
  keyvTestSuite(vitest, Keyv, store);
  keyvIteratorTests(vitest, Keyv, store);
});
