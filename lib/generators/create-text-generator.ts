import { DossierError } from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import type { TextGenerator } from '../ports/text-generator.js';
import { OfflineTextGenerator } from './offline-text-generator.js';
import { OpenAiTextGenerator } from './openai-text-generator.js';

/**
 * Chooses the text generator named by `options.generator`: `openai` talks to the chat-completions
 * server of `options.openai`; `offline` (the default) writes deterministic drafts with no network.
 * @throws DossierError `ERR_CONFIG_INVALID` when `openai` is chosen without `options.openai`.
 */
export function createTextGenerator(options: ResolvedOptions): TextGenerator {
  if (options.generator === 'openai') {
    if (options.openai === undefined) {
      throw new DossierError('ERR_CONFIG_INVALID', 'openai.baseUrl is required when generator is "openai"');
    }
    return new OpenAiTextGenerator(options.openai);
  }
  return new OfflineTextGenerator();
}
