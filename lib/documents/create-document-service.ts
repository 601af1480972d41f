import type { DocumentService } from '../ports/document-service.js';
import { KeyvDocumentService, type KeyvDocumentServiceOptions } from './keyv-document-service.js';
import { buildTemplates, type CustomTemplateOptions } from './templates.js';

/** What the document service is built from: the service's own options, with templates as configured. */
export interface DocumentServiceDependencies extends Omit<KeyvDocumentServiceOptions, 'templates'> {
  /** User-defined templates by id (53 to 72). */
  customTemplates: Record<number, CustomTemplateOptions>;
}

/**
 * Builds interface B's document service on the store's Keyv values and atomic counters, with the
 * templates of the specification plus `customTemplates`, and `generatorTimeoutMs` as the deadline of
 * each generation.
 */
export function createDocumentService(dependencies: DocumentServiceDependencies): DocumentService {
  const { customTemplates, ...options } = dependencies;
  return new KeyvDocumentService({ ...options, templates: buildTemplates(customTemplates) });
}
