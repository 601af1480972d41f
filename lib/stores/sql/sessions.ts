import type { Clock } from '../../ports/clock.js';
import type { SessionRecord, SessionStore, SignInVerdict } from '../../ports/session-store.js';
import { countTry, lockedAt, type TriesRecord } from '../../records/sign-in-tries.js';
import { deserialize } from '../shared/serialize.js';
import { placeIndexes, type ColumnTypes, type TableIndex } from './schema.js';
import type { KeyTables, SqlKeyRecords } from './keys.js';
import { step, TablesSetUpOnce, type SqlWork } from './work.js';

// Sessions and wrong tries as rows, on SQLite, PostgreSQL and MySQL/MariaDB alike (docs/storage.md, "Keys
// and sessions as records"): `dossier_sessions` holds each workspace session and each signed-out mark of
// the panel until it expires, `dossier_sign_in_tries` the wrong tries of each address of the last minute;
// both indexed by expiry, what has expired deleted by the next session written. A try is one transaction
// on its address's row, whose lock dies with the transaction. The tables are made with the keys'
// ({@link sessionSchema} is part of their schema). Statements are written with `?`.

/** The tables and indexes of the sessions, for SQLite and PostgreSQL (indexes apart) or MySQL (indexes inline). */
export function sessionSchema(
  types: Pick<ColumnTypes, 'id' | 'text' | 'count'>,
  inlineIndexes: boolean,
  tableOptions: string,
): string[] {
  const { within: index, after } = placeIndexes(
    ['dossier_sessions', 'dossier_sign_in_tries'].map((table): TableIndex => [table, `${table}_by_expiry`, 'expires_at']),
    inlineIndexes,
  );
  return [
    `CREATE TABLE IF NOT EXISTS dossier_sessions (name ${types.id} PRIMARY KEY, key_id ${types.id},
      expires_at ${types.count} NOT NULL${index('dossier_sessions')})${tableOptions}`,
    `CREATE TABLE IF NOT EXISTS dossier_sign_in_tries (name ${types.id} PRIMARY KEY, times ${types.text} NOT NULL,
      locked_until ${types.count} NOT NULL, expires_at ${types.count} NOT NULL${index('dossier_sign_in_tries')})${tableOptions}`,
    ...after,
  ];
}

/** What older releases kept of sessions and tries under the namespace, by kind. */
const OLD_PREFIXES: [prefix: string, kind: 'session' | 'tries'][] = [
  ['admin:signed-out:', 'session'],
  ['workspace:session:', 'session'],
  ['admin:sign-in:', 'tries'],
  ['workspace:sign-in:', 'tries'],
];

/** Sessions and tries as rows ({@link SessionStore}); their tables are the keys' ({@link SqlKeyRecords.ready}). */
export class SqlSessionStore implements SessionStore {
  /** The tables, set up: made (with the keys'), then the sessions and tries of older releases moved ({@link moveKeyvRecords}). */
  private readonly sql: TablesSetUpOnce;

  /** @param clock what says which sessions and tries have expired. */
  constructor(
    private readonly tables: KeyTables,
    keys: SqlKeyRecords,
    private readonly clock: Clock,
  ) {
    this.sql = new TablesSetUpOnce(tables, async () => {
      await keys.ready();
      await this.moveKeyvRecords();
    });
  }

  async put(name: string, record: SessionRecord): Promise<void> {
    const now = this.clock.now();
    await this.sql.transaction(function* () {
      yield step('DELETE FROM dossier_sessions WHERE expires_at <= ? OR name = ?', [now, name]);
      yield step('DELETE FROM dossier_sign_in_tries WHERE expires_at <= ?', [now]);
      yield step('INSERT INTO dossier_sessions (name, key_id, expires_at) VALUES (?, ?, ?)', [
        name,
        record.keyId,
        record.expiresAt,
      ]);
    });
  }

  async get(name: string, now: number): Promise<SessionRecord | undefined> {
    const [row] = await this.sql.read('SELECT key_id, expires_at FROM dossier_sessions WHERE name = ? AND expires_at > ?', [
      name,
      now,
    ]);
    return row === undefined
      ? undefined
      : { keyId: row.key_id === null ? null : String(row.key_id), expiresAt: Number(row.expires_at) };
  }

  async remove(name: string): Promise<void> {
    await this.sql.transaction(function* () {
      yield step('DELETE FROM dossier_sessions WHERE name = ?', [name]);
    });
  }

  async lockedUntil(name: string, now: number): Promise<number | null> {
    const [row] = await this.sql.read('SELECT times, locked_until FROM dossier_sign_in_tries WHERE name = ? AND expires_at > ?', [
      name,
      now,
    ]);
    return lockedAt(row === undefined ? undefined : triesOf(row), now);
  }

  async attempt(name: string, now: number, isRight: () => boolean): Promise<SignInVerdict> {
    // A locked address is refused on a read alone: tries made while it is locked write nothing.
    const locked = await this.lockedUntil(name, now);
    if (locked !== null) return { outcome: 'locked', lockedUntil: locked };
    const { forUpdate, insertIgnore } = this.tables.dialect;
    return this.sql.transaction(function* (): SqlWork<SignInVerdict> {
      // The row first, so that there is one to lock: tries at once on any process wait for each other here.
      yield step(
        `${insertIgnore.start} dossier_sign_in_tries (name, times, locked_until, expires_at) VALUES (?, '[]', 0, 0)${insertIgnore.end}`,
        [name],
      );
      const [row] = (yield step(`SELECT times, locked_until, expires_at FROM dossier_sign_in_tries WHERE name = ?${forUpdate}`, [
        name,
      ])).rows;
      const tried = countTry(row === undefined || Number(row.expires_at) <= now ? undefined : triesOf(row), now);
      if ('locked' in tried) return tried.locked;
      yield step('UPDATE dossier_sign_in_tries SET times = ?, locked_until = ?, expires_at = ? WHERE name = ?', [
        JSON.stringify(tried.counted.times),
        tried.counted.lockedUntil,
        tried.expiresAt,
        name,
      ]);
      if (!isRight()) return { outcome: 'wrong', nowLocked: tried.nowLocked };
      yield step('DELETE FROM dossier_sign_in_tries WHERE name = ?', [name]);
      return { outcome: 'right' };
    });
  }

  /**
   * Moves the sessions and tries that releases before these tables kept as key-value records (with their
   * expiry) into them, each batch inserted (a name there already skipped) and deleted from `keyv` in one
   * transaction: a signed-out session stays signed out, a workspace session open, a locked address locked.
   */
  private async moveKeyvRecords(): Promise<void> {
    const { namespace, dialect } = this.tables;
    const column = dialect.keyvKey;
    const { start, end } = dialect.insertIgnore;
    const now = Date.now();
    for (const [prefix, kind] of OLD_PREFIXES) {
      const [low, high] = prefixRange(`${namespace}:${prefix}`);
      for (;;) {
        const rows = await this.tables.read(
          this.sql.placed(
            `SELECT ${column} AS name, value FROM keyv WHERE ${column} >= ? AND ${column} < ? ORDER BY ${column} LIMIT 500`,
          ),
          [low, high],
        );
        if (rows.length === 0) break;
        await this.sql.run(function* () {
          for (const row of rows) {
            const name = String(row.name);
            const { value, expires } = keyvEntry(String(row.value));
            const short = name.slice(namespace.length + 1);
            if (expires !== undefined && expires > now && kind === 'session') {
              const keyId = typeof value === 'object' && value !== null ? (value as { keyId?: unknown }).keyId : undefined;
              yield step(`${start} dossier_sessions (name, key_id, expires_at) VALUES (?, ?, ?)${end}`, [
                short,
                typeof keyId === 'string' ? keyId : null,
                expires,
              ]);
            } else if (expires !== undefined && expires > now && isTries(value)) {
              yield step(`${start} dossier_sign_in_tries (name, times, locked_until, expires_at) VALUES (?, ?, ?, ?)${end}`, [
                short,
                JSON.stringify(value.times),
                value.lockedUntil,
                expires,
              ]);
            }
            yield step(`DELETE FROM keyv WHERE ${column} = ?`, [name]);
          }
        });
      }
    }
  }
}

function triesOf(row: Record<string, unknown>): TriesRecord {
  return { times: JSON.parse(String(row.times)) as number[], lockedUntil: Number(row.locked_until) };
}

function isTries(value: unknown): value is TriesRecord {
  const record = value as TriesRecord | null;
  return typeof record === 'object' && record !== null && Array.isArray(record.times) && typeof record.lockedUntil === 'number';
}

/** A record as Keyv wrote it: its value and its expiry (ms since the epoch), if it can be read. */
export function keyvEntry(text: string): { value: unknown; expires: number | undefined } {
  try {
    const { value, expires } = deserialize<{ value?: unknown; expires?: number | null }>(text);
    return { value, expires: typeof expires === 'number' ? expires : undefined };
  } catch {
    return { value: undefined, expires: undefined };
  }
}

/** The lower and upper bound of the names that start with `prefix` (its last character raised by one). */
function prefixRange(prefix: string): [string, string] {
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)];
}
