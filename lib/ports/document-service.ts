/** A template documents are made from. */
export interface Template {
  id: number;
  name: string;
  /** True for ids 53 to 72. */
  custom: boolean;
  /** What the generator is told to write. */
  instruction: string;
}

/** A document as the API shows it (CONTRACT.md §3). */
export interface Document {
  id: number;
  name: string;
  template: { id: number; name: string };
  prompt: string;
  creativity: number;
  result: string;
  words: number;
  favorite: boolean;
  created_at: string;
  updated_at: string;
}

/** One page of a listing. */
export interface DocumentPage {
  data: Document[];
  /** The filters that were given, normalized, to carry into links. */
  filters: Record<string, string>;
  current_page: number;
  per_page: number;
  last_page: number;
  from: number | null;
  to: number | null;
  total: number;
}

/**
 * Interface B. Inputs are raw (query or body values as received) and are validated here.
 * Every method is scoped to an `owner`: another owner's document does not exist.
 */
export interface DocumentService {
  /**
   * Lists the owner's documents.
   * @throws DossierValidationError for a value outside the allowed sets; `ERR_STORE_UNAVAILABLE`.
   */
  list(owner: string, query: Record<string, unknown>): Promise<DocumentPage>;
  /**
   * Reads one document.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; `ERR_STORE_UNAVAILABLE`.
   */
  get(owner: string, id: string): Promise<Document>;
  /**
   * Generates and stores a document; nothing is stored when generation fails.
   * @throws DossierValidationError; `ERR_GENERATOR_FAILED`, `ERR_GENERATOR_TIMEOUT`, `ERR_STORE_UNAVAILABLE`.
   */
  create(owner: string, input: Record<string, unknown>): Promise<Document>;
  /**
   * Changes the fields sent.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; DossierValidationError; `ERR_STORE_UNAVAILABLE`.
   */
  update(owner: string, id: string, input: Record<string, unknown>): Promise<Document>;
  /**
   * Deletes a document and returns its id.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; `ERR_STORE_UNAVAILABLE`.
   */
  delete(owner: string, id: string): Promise<number>;
  /** Every template, by id. */
  templates(): Template[];
}
