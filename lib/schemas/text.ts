/**
 * Text as every store keeps it. U+0000 is refused where it enters (PostgreSQL refuses it in text, which
 * would otherwise read as a store outage); a lone surrogate, which UTF-8 cannot carry, becomes U+FFFD
 * before anything is stored, so that the answer to a write is what a later read returns.
 */

/** Whether `text` holds U+0000, which no text field takes. */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** `text` with each lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`, Node 20). */
export function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/** The phrase of a field that holds U+0000, as a Laravel-worded sentence ends (`The name field …`). */
export const NUL_PHRASE = 'must not contain the NUL character (U+0000)';
