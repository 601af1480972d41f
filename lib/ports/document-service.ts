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

/** One step of a streamed creation (CONTRACT.md §9). */
export type DocumentStreamEvent =
  /** The next piece of the text, as soon as the generator wrote it. */
  | { type: 'delta'; text: string }
  /** The stored document, last; its `result` is the pieces joined. */
  | { type: 'document'; document: Document };

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
   * Validates the input, then generates and stores a document step by step: the promise settles once
   * the input is valid (before any generation), and iterating it runs the generation, yielding each
   * `delta` as it is written and then the stored `document`. Nothing is stored when generation fails,
   * when `signal` aborts (a client that went away: the generator's I/O stops too) or when the consumer
   * stops iterating before the `document`. The generator deadline covers the whole generation.
   * @throws DossierValidationError from the promise. The iteration throws `ERR_GENERATOR_FAILED`,
   *   `ERR_GENERATOR_TIMEOUT`, `ERR_STORE_UNAVAILABLE`, or `signal.reason` once `signal` aborted.
   */
  createStream(owner: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<AsyncIterable<DocumentStreamEvent>>;
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
