import { setImmediate as nextTurn } from 'node:timers/promises';
import type { GenerationRequest, TextGenerator } from '../ports/text-generator.js';
import { draftContext, draftWriter } from './offline-drafts.js';
import { seededRandom } from './prompt-text.js';

/** How many words the offline generator streams per piece. */
export const OFFLINE_WORDS_PER_PIECE = 3;

/**
 * Writes drafts without any model or network: a fixed pattern per template (an outline has numbered
 * sections, a tweet fits in 280 characters, hashtags start with #, a FAQ has questions and answers…)
 * filled in from the prompt's topic and keywords. Deterministic: the same prompt, template and
 * creativity give the same text; another creativity picks other wordings. It is a placeholder that
 * lets Dossier run with no account anywhere, not an AI.
 */
export class OfflineTextGenerator implements TextGenerator {
  /** Writes the draft; never fails and does no I/O, so the signal is not needed. */
  async generate(request: GenerationRequest, _signal: AbortSignal): Promise<string> {
    const random = seededRandom(request.templateName, String(request.creativity), request.prompt);
    return draftWriter(request.templateName)(draftContext(request.prompt, random));
  }

  /**
   * The same draft as {@link generate}, {@link OFFLINE_WORDS_PER_PIECE} words (with the whitespace
   * after them) per piece, letting the event loop turn between pieces so that they reach the client
   * one by one.
   * @throws the signal's reason when `signal` aborts.
   */
  async *stream(request: GenerationRequest, signal: AbortSignal): AsyncGenerator<string> {
    const text = await this.generate(request, signal);
    const words = text.match(/\s*\S+\s*/gu) ?? [text];
    for (let i = 0; i < words.length; i += OFFLINE_WORDS_PER_PIECE) {
      signal.throwIfAborted();
      yield words.slice(i, i + OFFLINE_WORDS_PER_PIECE).join('');
      await nextTurn();
    }
  }
}
