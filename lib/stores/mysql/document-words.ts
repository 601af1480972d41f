import { MYSQL_DIALECT } from '../sql/counters.js';
import { isWordNeedle, searchedWords } from '../../records/stored-document.js';
import type { SqlCondition } from '../sql/documents.js';

// The words of the documents' searched names and results on MySQL and MariaDB (docs/storage.md, "Documents
// at scale"). A needle made only of letters, marks and digits ("word characters") occurs in a text if and
// only if it is a part of one of the text's words, its maximal runs of word characters: so the documents
// that hold it are those listed under the words of the owner's vocabulary that hold it, exactly, with no
// text read. A search for a common word then reads its documents' ids from an index, some bytes each,
// where a scan reads every searched result of the owner (some 700 bytes each).

/** Where a word was found: the name or the result. */
export type WordField = 'name' | 'result';

const FIELDS: Record<WordField, number> = { name: 0, result: 1 };

/**
 * Each distinct word of each document's searched name (`field` 0) and result (1), in the order of the
 * owner, template and word: the ids of a word's documents, in order.
 */
export const DOCUMENT_WORDS = `dossier_document_words (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, field TINYINT NOT NULL, word VARBINARY(400) NOT NULL,
  id BIGINT NOT NULL, PRIMARY KEY (owner, template_id, field, word, id)
)${MYSQL_DIALECT.tableOptions}`;

/**
 * Each word that a document of the owner and template has had in its name or result: what a search reads
 * to find the words that hold its needle. Written when a document gets the word, never deleted (a word no
 * document has any more lists none), so that writes never wait on each other for it.
 */
export const DOCUMENT_VOCABULARY = `dossier_document_vocabulary (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, field TINYINT NOT NULL, word VARBINARY(400) NOT NULL,
  PRIMARY KEY (owner, template_id, field, word)
)${MYSQL_DIALECT.tableOptions}`;

/** Code points of the longest word kept as it is; a longer one is kept as {@link LONG_WORD}. */
const LONGEST_WORD = 100;

/**
 * What a document with a word longer than {@link LONGEST_WORD} has in its stead: the search checks each
 * such document's text itself (`LOCATE`), so that a needle in the middle of a very long word is found.
 */
export const LONG_WORD = '';

/** Whether the words answer a search of `needle` (a searched form): it is made of word characters only. */
export function wordNeedle(needle: string): boolean {
  return isWordNeedle(needle);
}

/** The distinct words of a searched form, each longer than {@link LONGEST_WORD} as {@link LONG_WORD}. */
export function wordsOf(searched: string): string[] {
  return [...new Set(searchedWords(searched).map((word) => (Array.from(word).length > LONGEST_WORD ? LONG_WORD : word)))];
}

/** The rows of {@link DOCUMENT_WORDS} (and, without the id, of {@link DOCUMENT_VOCABULARY}) of a document's searched text. */
export function wordRows(owner: string, templateId: number, field: WordField, searched: string, id: unknown): unknown[][] {
  return wordsOf(searched).map((word) => [owner, templateId, FIELDS[field], word, id]);
}

/**
 * The statements that write rows of {@link wordRows} and of the vocabulary (none when `rows` is empty): a
 * row there already is kept (a fill and a change of the same document write the same rows).
 */
export function wordsWritten(rows: unknown[][]): SqlCondition[] {
  return rows.length === 0
    ? []
    : [
        { sql: 'INSERT IGNORE INTO dossier_document_words (owner, template_id, field, word, id) VALUES ?', values: [rows] },
        {
          sql: 'INSERT IGNORE INTO dossier_document_vocabulary (owner, template_id, field, word) VALUES ?',
          values: [rows.map((row) => row.slice(0, 4))],
        },
      ];
}

/** The statement that deletes a document's words of a field, given the searched text it had: none when it has none. */
export function wordsDeleted(owner: string, templateId: number, field: WordField, searched: string, id: number): SqlCondition[] {
  const words = wordsOf(searched);
  return words.length === 0
    ? []
    : [
        {
          sql: 'DELETE FROM dossier_document_words WHERE owner = ? AND template_id = ? AND field = ? AND word IN (?) AND id = ?',
          values: [owner, templateId, FIELDS[field], words, id],
        },
      ];
}

/** The words of the owner's vocabulary of a template and field that hold `needle`, and {@link LONG_WORD} if there is one. */
export function vocabularySql(owner: string, templateId: number, field: WordField, needle: string): SqlCondition {
  return {
    sql: `SELECT word FROM dossier_document_vocabulary WHERE owner = ? AND template_id = ? AND field = ?
      AND (LOCATE(?, word) > 0 OR word = '')`,
    values: [owner, templateId, FIELDS[field], needle],
  };
}

/** How many rows of `words` the owner's documents of a template have in a field, counted to `most` at the most. */
export function postingsSql(owner: string, templateId: number, field: WordField, words: string[], most: number): SqlCondition {
  return {
    sql: `SELECT COUNT(*) AS found FROM (SELECT 1 FROM dossier_document_words
      WHERE owner = ? AND template_id = ? AND field = ? AND word IN (?) LIMIT ${most}) w`,
    values: [owner, templateId, FIELDS[field], words],
  };
}

/**
 * The ids of the documents of the owner and template listed under `words` (each once): those under
 * {@link LONG_WORD} only when their text holds the needle.
 */
export function wordsMatchingSql(
  owner: string,
  templateId: number,
  field: WordField,
  words: string[],
  needle: string,
): SqlCondition {
  const of = { sql: 'w.owner = ? AND w.template_id = ? AND w.field = ?', values: [owner, templateId, FIELDS[field]] };
  const plain = words.filter((word) => word !== LONG_WORD);
  const parts: SqlCondition[] = [];
  if (plain.length > 0) {
    parts.push({
      sql: `SELECT DISTINCT w.id FROM dossier_document_words w WHERE ${of.sql} AND w.word IN (?)`,
      values: [...of.values, plain],
    });
  }
  if (plain.length < words.length) {
    const checked =
      field === 'result'
        ? 'JOIN dossier_document_results c ON c.owner = w.owner AND c.template_id = w.template_id AND c.id = w.id'
        : 'JOIN dossier_documents c ON c.id = w.id';
    const text = field === 'result' ? 'c.result_lower' : 'c.name_lower';
    parts.push({
      sql: `SELECT w.id FROM dossier_document_words w ${checked} WHERE ${of.sql} AND w.word = '' AND LOCATE(?, ${text}) > 0`,
      values: [...of.values, needle],
    });
  }
  return { sql: parts.map(({ sql }) => sql).join(' UNION '), values: parts.flatMap(({ values }) => values) };
}

/**
 * The ids of the documents listed under one `word` (not {@link LONG_WORD}), in the order of their ids:
 * read from the index in its order, with neither a temporary table nor a sort.
 */
export function oneWordSql(
  owner: string,
  templateId: number,
  field: WordField,
  word: string,
  direction: 'ASC' | 'DESC',
): SqlCondition {
  return {
    sql: `SELECT id FROM dossier_document_words WHERE owner = ? AND template_id = ? AND field = ? AND word = ?
      ORDER BY id ${direction}`,
    values: [owner, templateId, FIELDS[field], word],
  };
}
