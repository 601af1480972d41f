import type { Document, Template } from '../ports/document-service.js';

/**
 * A document as kept in the store: the API fields (derived from the port's, so that the two cannot
 * drift), its template by id only, and its owner, which is never returned.
 */
export interface StoredDocument extends Omit<Document, 'template'> {
  /** The account whose document this is. */
  owner: string;
  /** The id of its template; the API form names the template from it. */
  template_id: number;
}

/** The store key of a document. */
export function documentKey(id: number): string {
  return `doc:${id}`;
}

/** True when `value` read from the store is a document of `owner`. */
export function isStoredDocumentOf(value: unknown, owner: string): value is StoredDocument {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<StoredDocument>;
  return record.owner === owner && typeof record.id === 'number' && typeof record.name === 'string';
}

/** The API form of a stored document (CONTRACT.md §3): the owner left out, the template named. */
export function toDocument(stored: StoredDocument, templates: Map<number, Template>): Document {
  return {
    id: stored.id,
    name: stored.name,
    template: { id: stored.template_id, name: templates.get(stored.template_id)?.name ?? `Template ${stored.template_id}` },
    prompt: stored.prompt,
    creativity: stored.creativity,
    result: stored.result,
    words: stored.words,
    favorite: stored.favorite,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}
