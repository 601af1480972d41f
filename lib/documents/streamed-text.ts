/**
 * A text received piece by piece and passed on as it comes, such that the pieces passed on, joined,
 * are exactly the text that is stored: trimmed (leading whitespace dropped, trailing whitespace held
 * back until more text follows it) and capped at `max` characters (code points).
 */
export class StreamedText {
  private started = false;
  private pending = '';
  private written = '';
  private count = 0;
  private capped = false;

  /** @param max the most characters (code points) kept. */
  constructor(private readonly max: number) {}

  /** Takes the next piece; returns what can be passed on now (possibly `''`). */
  push(piece: string): string {
    if (this.capped) return '';
    let text = piece;
    if (!this.started) {
      text = text.replace(/^\s+/u, '');
      if (text === '') return '';
      this.started = true;
    }
    text = this.pending + text;
    const trailing = /\s+$/u.exec(text);
    this.pending = trailing ? trailing[0] : '';
    text = trailing ? text.slice(0, trailing.index) : text;
    if (text === '') return '';
    const length = codePoints(text);
    if (this.count + length > this.max) {
      text = Array.from(text)
        .slice(0, this.max - this.count)
        .join('');
      this.capped = true;
      this.count = this.max;
    } else {
      this.count += length;
    }
    this.written += text;
    return text;
  }

  /** True once the cap is reached: nothing more will be passed on. */
  get full(): boolean {
    return this.capped;
  }

  /** Everything passed on so far: the text to store. */
  get text(): string {
    return this.written;
  }
}

/** The number of code points of `text` (an astral character counts once, as in `Array.from`). */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
