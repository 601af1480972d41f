/**
 * Counts the words of a text (docs/contract.md §3): every whitespace-separated token that holds at least
 * one letter or digit is a word, and every Han, Hiragana, Katakana or Hangul character counts 0.75.
 * The result is not rounded: it is a whole number plus a multiple of 0.75, exact in floating point.
 *
 * Self-contained (it refers to nothing outside its body): the documents workspace serves its source to
 * the browser, so that the count kept live while a text is edited is this one.
 */
export function countWords(text: string): number {
  // Characters of scripts written without spaces between words. Script_Extensions, not Script: the
  // long-vowel mark ー and the iteration marks are "Common" by script but belong to Japanese words.
  const cjk = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/gu;
  const word = /[\p{L}\p{N}]/u;
  const cjkWeight = 0.75;
  let characters = 0;
  const rest = text.replace(cjk, () => {
    characters += 1;
    return ' ';
  });
  let words = 0;
  for (const token of rest.split(/\s+/u)) {
    if (word.test(token)) words += 1;
  }
  return words + characters * cjkWeight;
}
