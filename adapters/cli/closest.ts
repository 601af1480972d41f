/**
 * The one of `candidates` closest to `word` by edit distance, when it is close enough to be what was
 * meant (at most a third of the word's letters wrong, and at least one letter right); else undefined.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && best.distance <= allowed && best.distance < word.length ? best.candidate : undefined;
}

/** The least number of letters to insert, delete, replace or swap with the next to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  // Rows of the Damerau-Levenshtein (optimal string alignment) table: two before this one.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}
