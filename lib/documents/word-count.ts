/** Characters of scripts written without spaces between words: each counts as 0.75 of a word. */
// Script_Extensions, not Script: the long-vowel mark ー and the iteration marks are "Common" by script
// but belong to Japanese words.
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/gu;
const WORD = /[\p{L}\p{N}]/u;

/** What one CJK character counts for. */
export const CJK_CHARACTER_WEIGHT = 0.75;

/**
 * Counts the words of a text (docs/contract.md §3): every whitespace-separated token that holds at least
 * one letter or digit is a word, and every Han, Hiragana, Katakana or Hangul character counts 0.75.
 * The result is not rounded: it is a whole number plus a multiple of 0.75, exact in floating point.
 */
export function countWords(text: string): number {
  let cjk = 0;
  const rest = text.replace(CJK, () => {
    cjk += 1;
    return ' ';
  });
  let words = 0;
  for (const token of rest.split(/\s+/u)) {
    if (WORD.test(token)) words += 1;
  }
  return words + cjk * CJK_CHARACTER_WEIGHT;
}
