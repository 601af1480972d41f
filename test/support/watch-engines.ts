import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DossierOptions } from '../../lib/options.js';
import { uniqueName } from '../contracts/backends.js';

/** A store watches run on, and so an engine: timers on memory, SQLite and MySQL, BullMQ on Redis and PostgreSQL. */
export interface WatchEngineCase {
  /** `memory (timers)`, `sqlite (timers)`, `mysql (timers)`, `redis (BullMQ)`, `postgres (BullMQ)`. */
  name: string;
  /** True when several processes (Dossiers) on the options share the work: every store but memory. */
  shared: boolean;
  /**
   * The store options of a fresh store, the same for every process of one test (call once per test);
   * `undefined` when this machine has no such server (the test skips).
   */
  options(): Pick<DossierOptions, 'store' | 'jobQueuePrefix'> | undefined;
  /** Removes what the options made (SQLite files, MySQL databases). */
  cleanup(): void;
}

/**
 * Runs one statement on the MySQL server of `url` as its user, synchronously (the engine cases' options
 * are made synchronously): in a node of its own, with mysql2.
 */
function mysqlStatement(url: string, sql: string): void {
  const script = `const mysql = require('mysql2/promise');
    mysql.createConnection({ uri: process.env.URL }).then(async (connection) => {
      await connection.query(process.env.SQL);
      await connection.end();
    });`;
  const run = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, URL: url, SQL: sql }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${sql} failed: ${run.stderr}`);
}

/**
 * Every engine, on the stores of this machine (Redis, PostgreSQL and MySQL from `DOSSIER_TEST_REDIS`,
 * `DOSSIER_TEST_POSTGRES` and `DOSSIER_TEST_MYSQL`). A MySQL store is a database of each test's own, as a
 * SQLite one is a file: the timers of its processes read every watch the store holds.
 */
export function watchEngineCases(): WatchEngineCase[] {
  const dirs: string[] = [];
  const databases: string[] = [];
  const mysql = process.env.DOSSIER_TEST_MYSQL;
  const shared = (name: string, url: string | undefined): WatchEngineCase => ({
    name,
    shared: true,
    options: () => (url ? { store: url, jobQueuePrefix: uniqueName('jobs') } : undefined),
    cleanup() {},
  });
  return [
    { name: 'memory (timers)', shared: false, options: () => ({ store: 'memory://' }), cleanup() {} },
    {
      name: 'sqlite (timers)',
      shared: true,
      options() {
        const dir = mkdtempSync(join(tmpdir(), 'dossier-watches-'));
        dirs.push(dir);
        return { store: `sqlite://${join(dir, 'store.sqlite')}` };
      },
      cleanup() {
        for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      },
    },
    {
      name: 'mysql (timers)',
      shared: true,
      options() {
        if (!mysql) return undefined;
        const url = new URL(mysql);
        url.pathname = `${url.pathname}_${uniqueName('w').replace('-', '_')}`;
        mysqlStatement(mysql, `CREATE DATABASE \`${url.pathname.slice(1)}\` CHARACTER SET utf8mb4`);
        databases.push(url.href);
        return { store: url.href };
      },
      cleanup() {
        for (const url of databases.splice(0))
          mysqlStatement(url, `DROP DATABASE IF EXISTS \`${new URL(url).pathname.slice(1)}\``);
      },
    },
    shared('redis (BullMQ)', process.env.DOSSIER_TEST_REDIS),
    shared('postgres (BullMQ)', process.env.DOSSIER_TEST_POSTGRES),
  ];
}
