/**
 * The distinct trigrams (three code points each) of a searched form: all of them, not only those a search
 * asks for, as the trigram tables of MySQL keep them (neither MySQL nor MariaDB has a substring index).
 */
export function everyTrigram(searched: string): string[] {
  const points = Array.from(searched);
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i += 1) trigrams.add(points.slice(i, i + 3).join(''));
  return [...trigrams];
}
