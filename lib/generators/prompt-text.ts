import { createHash } from 'node:crypto';

const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves write create generate draft make give compose please want need also get ' +
    "one two three new use using used like way ways via per let lets us its it's i'm we're they're you're"
  ).split(' '),
);

/** A deterministic random source: the same seed gives the same sequence. */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** One of `options`. */
  pick<T>(options: readonly T[]): T;
}

/** A {@link Random} seeded from `parts` (mulberry32 on a SHA-256 of them). */
export function seededRandom(...parts: string[]): Random {
  let state = createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: (options) => options[Math.floor(next() * options.length)] as (typeof options)[number] };
}

/** Whitespace collapsed to single spaces, ends trimmed. */
export function squash(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** The sentences of a text. */
export function sentences(text: string): string[] {
  return squash(text)
    .split(/(?<=[.!?。！？])\s+/u)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const REQUEST =
  /^(?:please\s+)?(?:write|create|generate|draft|make|compose|give\s+me|i\s+need|we\s+need)\b[^]*?\b(?:about|on|for|regarding|describing|introducing)\s+(.+)$/iu;

/** The prompt without a leading request ("Write a blog post about …"): what it is about, in full. */
export function subjectOf(prompt: string): string {
  const all = sentences(prompt);
  const first = all[0] ?? '';
  const request = REQUEST.exec(first);
  return [request?.[1] ?? first, ...all.slice(1)].join(' ');
}

/**
 * What the prompt is about, as a phrase: its first sentence without a leading request, without final
 * punctuation, cut at a word boundary near `max` characters.
 */
export function topicOf(prompt: string, max = 90): string {
  const first = sentences(subjectOf(prompt))[0] ?? '';
  const topic = first.replace(/[\s.,;:!?。！？]+$/u, '');
  return shorten(topic, max) || shorten(squash(prompt), max);
}

/** `text` cut at the last word boundary within `max` characters (no ellipsis). */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max).join('');
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:–—-]+$/u, '');
}

/**
 * The prompt's key phrases, lower case: runs of up to three significant words ("remote work", "small
 * teams"), the phrases whose words recur most first (ties in order of appearance).
 */
export function keywordsOf(prompt: string, limit = 10): string[] {
  const counts = new Map<string, number>();
  const runs: string[][] = [];
  let run: string[] = [];
  for (const match of prompt.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\s\p{L}\p{N}]/gu)) {
    const word = match[0].replace(/['’-]+$/u, '');
    const significant = /^[\p{L}\p{N}]/u.test(word) && !STOPWORDS.has(word) && (word.length >= 3 || /[^\x00-\x7f]/u.test(word));
    if (!significant) {
      if (run.length > 0) runs.push(run);
      run = [];
      continue;
    }
    counts.set(word, (counts.get(word) ?? 0) + 1);
    run.push(word);
  }
  if (run.length > 0) runs.push(run);
  const phrases = new Map<string, number>();
  for (const words of runs) {
    const phrase = shorten(words.slice(-3).join(' '), 24);
    const score = words.slice(-3).reduce((sum, word) => sum + (counts.get(word) ?? 0), 0) / Math.min(words.length, 3);
    if (!phrases.has(phrase)) phrases.set(phrase, score);
  }
  return [...phrases.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([phrase]) => phrase);
}

/** The first letter in upper case. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Every word capitalized except short joining words (not the first). */
export function titleCase(text: string): string {
  const small = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with']);
  return text
    .split(' ')
    .map((word, index) => (index > 0 && small.has(word.toLowerCase()) ? word.toLowerCase() : capitalize(word)))
    .join(' ');
}

/** A hashtag from a phrase: letters and digits only, each word capitalized after the first. */
export function hashtag(phrase: string): string {
  const words = phrase.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return `#${words.map((word, index) => (index === 0 ? word.toLowerCase() : capitalize(word.toLowerCase()))).join('')}`;
}
