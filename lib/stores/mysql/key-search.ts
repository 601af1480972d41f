import { trigramsOf } from '../sql/documents.js';
import { KEY_COUNT, type KeySearchIndex, type KeyTables } from '../sql/keys.js';
import { step, type SqlStep, type SqlWork } from '../sql/work.js';
import { MYSQL_DIALECT } from '../sql/counters.js';
import { everyTrigram } from './trigrams.js';

// The substring index of the keys' search on MySQL and MariaDB (docs/storage.md, "Keys and sessions as
// records"), which neither server has: each distinct trigram of each key's searched text (name, owner and
// id, lower-cased) is a row of `dossier_key_trigrams`, written by the statements of the transaction that
// writes the key (no trigger: MySQL's need a privilege where the binary log is on), as SQLite's FTS5 and
// PostgreSQL's pg_trgm index keep theirs.

/** The trigrams of each key's searched text, by trigram. A key is never deleted; a rename replaces its rows. */
const KEY_TRIGRAMS = `CREATE TABLE IF NOT EXISTS dossier_key_trigrams (
  trigram VARBINARY(12) NOT NULL, id VARBINARY(255) NOT NULL, PRIMARY KEY (trigram, id)
)${MYSQL_DIALECT.tableOptions}`;

/**
 * What is left to fill of {@link KEY_TRIGRAMS} in a store whose keys were written before it: the keys
 * whose `seq` is above `done_through` and at most `last_seq` (the highest when the table was made).
 */
const KEY_FILLS = `CREATE TABLE IF NOT EXISTS dossier_key_fills (
  name VARBINARY(64) NOT NULL PRIMARY KEY, done_through BIGINT NOT NULL, last_seq BIGINT NOT NULL
)${MYSQL_DIALECT.tableOptions}`;

/** The row of {@link KEY_FILLS} of {@link KEY_TRIGRAMS}: the table's name. */
const FILL = 'dossier_key_trigrams';

/** Keys indexed by one step of the fill (some forty rows each). */
const FILL_KEYS = 500;

/**
 * A trigram narrows a search when it is in fewer keys than this share of all keys (or than
 * {@link FEW_KEYS}): reading a key through the index (its trigram rows, then its row by id) costs some
 * times what a scan pays for it, and a needle made of what most keys hold (`acct`, `key_`) is answered
 * sooner by reading every key's searched text.
 */
const INDEXED_SHARE = 1 / 8;

/** Below so many keys of a trigram, the index narrows a search whatever the number of keys. */
const FEW_KEYS = 64;

/** The rows of {@link KEY_TRIGRAMS} of a key, as one `INSERT IGNORE` (none when its text has no trigram). */
function indexed(keys: { id: string; search: string }[]): SqlStep[] {
  const rows = keys.flatMap(({ id, search }) => everyTrigram(search).map((trigram) => [trigram, id]));
  return rows.length === 0 ? [] : [step('INSERT IGNORE INTO dossier_key_trigrams (trigram, id) VALUES ?', [rows])];
}

/** The trigram index of the keys on MySQL ({@link KeySearchIndex}). */
export class MysqlKeySearch implements KeySearchIndex {
  /** True once every key has its trigrams (never false again). */
  private filled = false;
  /** The fill this process runs, while it runs. */
  private filling: Promise<void> | undefined;

  constructor(private readonly tables: Omit<KeyTables, 'dialect'>) {}

  readonly indexed = indexed;

  unindexed(id: string, search: string): SqlStep[] {
    const trigrams = everyTrigram(search);
    return trigrams.length === 0
      ? []
      : [step('DELETE FROM dossier_key_trigrams WHERE trigram IN (?) AND id = ?', [trigrams, id])];
  }

  /**
   * Makes the tables. The keys of a store made before the trigrams were kept have none: those up to the
   * highest `seq` when the table is made are filled in, in the background (see {@link fill}), and searched
   * by a scan meanwhile. The fill's row is written before the table is made, once (a row there already
   * stays), so that no process sees the table without it; a store with no key yet has nothing to fill.
   */
  async setUp(): Promise<void> {
    await this.tables.ddl(KEY_FILLS);
    await this.tables.read(
      `INSERT IGNORE INTO dossier_key_fills (name, done_through, last_seq)
       SELECT ?, 0, highest FROM (SELECT COALESCE(MAX(seq), 0) AS highest FROM dossier_keys) k
       WHERE NOT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?)`,
      [FILL, FILL],
    );
    await this.tables.ddl(KEY_TRIGRAMS);
    this.fill();
  }

  /**
   * The condition of a search of the lower-cased `needle`. Through the trigrams when the needle has three
   * code points or more, every key has its trigrams, and one of the needle's trigrams is in few keys
   * ({@link INDEXED_SHARE}): the keys that have its two rarest trigrams, each checked on its searched
   * text. Otherwise every key's searched text is read (`INSTR`).
   */
  async searched(needle: string): Promise<{ sql: string; values: unknown[] }> {
    const check = { sql: 'INSTR(search, ?) > 0', values: [needle] };
    const trigrams = trigramsOf(needle);
    const rarest = trigrams.length > 0 && (await this.ready()) ? await this.rarest(trigrams) : [];
    if (rarest.length === 0) return check;
    const [first, second = first] = rarest;
    return {
      sql: `id IN (SELECT t0.id FROM dossier_key_trigrams t0 STRAIGHT_JOIN dossier_key_trigrams t1
        ON t1.trigram = ? AND t1.id = t0.id WHERE t0.trigram = ?) AND ${check.sql}`,
      values: [second, first, ...check.values],
    };
  }

  /**
   * The two trigrams of `trigrams` in the fewest keys, rarest first, when one is in fewer than the
   * {@link INDEXED_SHARE} of the keys; none otherwise. Each trigram's keys are counted that far at the most.
   */
  private async rarest(trigrams: string[]): Promise<string[]> {
    const [count] = await this.tables.read('SELECT value FROM dossier_counters WHERE name = ?', [KEY_COUNT]);
    const most = Math.max(FEW_KEYS, Math.ceil(Number(count?.value ?? 0) * INDEXED_SHARE));
    const counted = await this.tables.read(
      trigrams
        .map(
          () =>
            `SELECT ? AS trigram, COUNT(*) AS found FROM (SELECT 1 FROM dossier_key_trigrams WHERE trigram = ? LIMIT ${most}) t`,
        )
        .join(' UNION ALL '),
      trigrams.flatMap((trigram) => [trigram, trigram]),
    );
    const sorted = counted
      .map(({ trigram, found }) => ({ trigram: String(trigram), found: Number(found) }))
      .sort((a, b) => a.found - b.found);
    return sorted[0]!.found >= most ? [] : sorted.slice(0, 2).map(({ trigram }) => trigram);
  }

  /** True once every key has its trigrams; until then, makes sure a fill runs. */
  private async ready(): Promise<boolean> {
    if (this.filled) return true;
    const [progress] = await this.tables.read('SELECT done_through, last_seq FROM dossier_key_fills WHERE name = ?', [FILL]);
    if (progress === undefined || Number(progress.done_through) >= Number(progress.last_seq)) this.filled = true;
    else this.fill();
    return this.filled;
  }

  /**
   * Writes the trigrams of the keys written before the table, a step at a time in the background, until
   * none is left or a step fails (the next search starts it again). Each step is a transaction that takes
   * the fill's row (two processes take turns), reads the next keys' searched texts (locked until it
   * commits, so that a rename waits and writes its own rows after), writes their trigrams and moves the
   * row on: a process stopped halfway leaves the row where its last step put it.
   */
  private fill(): void {
    if (this.filled || this.filling !== undefined) return;
    this.filling = (async () => {
      while (!(await this.tables.transaction(fillStep))) {
        // Each step commits on its own: go on with the next.
      }
      this.filled = true;
    })()
      // A step that failed (the store down, a lock waited for too long) is tried again by the next search.
      .catch(() => {})
      .finally(() => (this.filling = undefined));
  }
}

/** One step of the fill. @returns true when nothing is left. */
function* fillStep(): SqlWork<boolean> {
  const [progress] = (yield step('SELECT done_through, last_seq FROM dossier_key_fills WHERE name = ? FOR UPDATE', [FILL])).rows;
  if (progress === undefined) return true;
  const [after, last] = [Number(progress.done_through), Number(progress.last_seq)];
  if (after >= last) return true;
  const keys = (yield step(
    'SELECT seq, id, search FROM dossier_keys WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ? LOCK IN SHARE MODE',
    [after, last, FILL_KEYS],
  )).rows;
  yield* indexed(keys.map(({ id, search }) => ({ id: String(id), search: String(search) })));
  const through = keys.length < FILL_KEYS ? last : Number(keys.at(-1)!.seq);
  yield step('UPDATE dossier_key_fills SET done_through = ? WHERE name = ?', [through, FILL]);
  return through >= last;
}
