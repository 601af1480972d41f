import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { DocumentService } from '../ports/document-service.js';
import type { TextGenerator } from '../ports/text-generator.js';
import type { KvStore } from '../stores/kv-store.js';
import { KeyvDocumentService } from './keyv-document-service.js';
import { buildTemplates, type CustomTemplateOptions } from './templates.js';

/** What the document service is built from. */
export interface DocumentServiceDependencies {
  kv: KvStore;
  counters: CounterStore;
  generator: TextGenerator;
  clock: Clock;
  /** User-defined templates by id (53 to 72). */
  customTemplates: Record<number, CustomTemplateOptions>;
  /** Deadline of one generation, in milliseconds. */
  generatorTimeoutMs: number;
}

/**
 * Builds interface B's document service on the store's Keyv values and atomic counters, with the
 * templates of the specification plus `customTemplates`, and `generatorTimeoutMs` as
 * the deadline of each generation.
 */
export function createDocumentService(dependencies: DocumentServiceDependencies): DocumentService {
  return new KeyvDocumentService({
    kv: dependencies.kv,
    counters: dependencies.counters,
    generator: dependencies.generator,
    clock: dependencies.clock,
    templates: buildTemplates(dependencies.customTemplates),
    generatorTimeoutMs: dependencies.generatorTimeoutMs,
  });
}
