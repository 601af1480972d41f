import { DossierError } from '../errors.js';
import type { TextGenerator } from '../ports/text-generator.js';
import { OfflineTextGenerator } from './offline-text-generator.js';
import { OpenAiTextGenerator, type OpenAiOptions } from './openai-text-generator.js';

/** Which text generator writes documents. */
export interface TextGeneratorOptions {
  /** `openai` talks to a chat-completions server; `offline` writes deterministic drafts. @default 'offline' */
  generator: 'offline' | 'openai';
  /** The server; required when `generator` is `'openai'`. @default undefined */
  openai?: OpenAiOptions;
}

/**
 * Chooses the text generator named by `options.generator`: `openai` talks to the chat-completions
 * server of `options.openai`; `offline` (the default) writes deterministic drafts with no network.
 * @throws DossierError `ERR_CONFIG_INVALID` when `openai` is chosen without `options.openai`.
 */
export function createTextGenerator(options: TextGeneratorOptions): TextGenerator {
  if (options.generator === 'openai') {
    if (options.openai === undefined) {
      throw new DossierError('ERR_CONFIG_INVALID', 'openai.baseUrl is required when generator is "openai"');
    }
    return new OpenAiTextGenerator(options.openai);
  }
  return new OfflineTextGenerator();
}
