import type { DocumentService } from '../ports/document-service.js';
import { StoreDocumentService, type StoreDocumentServiceOptions } from './store-document-service.js';
import { buildTemplates, type CustomTemplateOptions } from './templates.js';

/** What the document service is built from: the service's own options, with templates as configured. */
export interface DocumentServiceDependencies extends Omit<StoreDocumentServiceOptions, 'templates'> {
  /** User-defined templates by id (53 to 72). */
  customTemplates: Record<number, CustomTemplateOptions>;
}

/**
 * Builds interface B's document service on a document store, with the templates of the specification
 * plus `customTemplates`, and `generatorTimeoutMs` as the deadline of each generation.
 */
export function createDocumentService(dependencies: DocumentServiceDependencies): DocumentService {
  const { customTemplates, ...options } = dependencies;
  return new StoreDocumentService({ ...options, templates: buildTemplates(customTemplates) });
}
