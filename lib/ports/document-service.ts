/** A template documents are made from. */
export interface Template {
  id: number;
  name: string;
  /** True for ids 53 to 72. */
  custom: boolean;
  /** What the generator is told to write. */
  instruction: string;
}

/** A document as the API shows it (docs/contract.md §3). */
export interface Document {
  id: number;
  name: string;
  template: { id: number; name: string };
  prompt: string;
  creativity: number;
  result: string;
  words: number;
  favorite: boolean;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

/** One page of a listing. */
export interface DocumentPage {
  data: Document[];
  /** From 1. */
  currentPage: number;
  perPage: number;
  /** At least 1, even when nothing matches. */
  lastPage: number;
  /** The position of the page's first document among all matches (from 1); `null` for an empty page. */
  from: number | null;
  /** The position of its last document; `null` for an empty page. */
  to: number | null;
  /** How many documents match in all. */
  total: number;
}

/** What {@link DocumentService.list} shows: every field is optional and has the default named. */
export interface DocumentListOptions {
  /** A substring, case-insensitively, of the field `searchBy` names; `''` or absent: no search. */
  search?: string;
  /** @default 'name' */
  searchBy?: 'name' | 'result';
  /** 1 to 72. @default 1 */
  templateId?: number;
  /** Only favorites (true) or only the others (false); absent: both. */
  favorite?: boolean;
  /** @default 'id' */
  sortBy?: 'id' | 'name';
  /** @default 'desc' */
  sort?: 'asc' | 'desc';
  /** 1 to 100 (the HTTP API takes 10, 25, 50 or 100). @default 10 */
  perPage?: number;
  /** From 1. @default 1 */
  page?: number;
}

/** What a document is made from. Text is trimmed. */
export interface NewDocument {
  /** 1 to 128 characters. */
  name: string;
  /** What to write about: 1 to 2048 characters. */
  prompt: string;
  /** The temperature: 0, 0.25, 0.5, 0.75 or 1. @default 0.5 */
  creativity?: number;
  /** 1 to 72. @default 1 */
  templateId?: number;
}

/** What {@link DocumentService.update} may change; absent fields stay as they are. */
export interface DocumentChanges {
  /** 1 to 128 characters, trimmed. */
  name?: string;
  /** At most 20480 characters; `null` or `''` empties it. */
  result?: string | null;
  favorite?: boolean;
}

/** One step of a streamed creation (docs/contract.md §9). */
export type DocumentStreamEvent =
  /** The next piece of the text, as soon as the generator wrote it. */
  | { type: 'delta'; text: string }
  /** The stored document, last; its `result` is the pieces joined. */
  | { type: 'document'; document: Document };

/**
 * Interface B, in JavaScript's terms (the HTTP API's Laravel shapes are made by adapters/http). Inputs
 * are checked here, whoever calls. Every method is scoped to an `owner`: another owner's document does
 * not exist.
 */
export interface DocumentService {
  /**
   * Lists the owner's documents.
   * @throws DossierValidationError `ERR_DOCUMENT_INVALID` for a value outside the allowed sets; `ERR_STORE_UNAVAILABLE`.
   */
  list(owner: string, options?: DocumentListOptions): Promise<DocumentPage>;
  /**
   * Reads one document.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; `ERR_STORE_UNAVAILABLE`.
   */
  get(owner: string, id: number): Promise<Document>;
  /**
   * Generates and stores a document; nothing is stored when generation fails.
   * @throws DossierValidationError `ERR_DOCUMENT_INVALID`; `ERR_GENERATOR_FAILED`, `ERR_GENERATOR_TIMEOUT`, `ERR_STORE_UNAVAILABLE`.
   */
  create(owner: string, input: NewDocument): Promise<Document>;
  /**
   * Validates the input, then generates and stores a document step by step: the promise settles once
   * the input is valid (before any generation), and iterating it runs the generation, yielding each
   * `delta` as it is written and then the stored `document`. Nothing is stored when generation fails,
   * when `signal` aborts (a client that went away: the generator's I/O stops too) or when the consumer
   * stops iterating before the `document`. The generator deadline covers the whole generation.
   * @throws DossierValidationError `ERR_DOCUMENT_INVALID` from the promise. The iteration throws `ERR_GENERATOR_FAILED`,
   *   `ERR_GENERATOR_TIMEOUT`, `ERR_STORE_UNAVAILABLE`, or `signal.reason` once `signal` aborted.
   */
  createStream(owner: string, input: NewDocument, signal?: AbortSignal): Promise<AsyncIterable<DocumentStreamEvent>>;
  /**
   * Changes the fields sent.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; DossierValidationError `ERR_DOCUMENT_INVALID`; `ERR_STORE_UNAVAILABLE`.
   */
  update(owner: string, id: number, changes: DocumentChanges): Promise<Document>;
  /**
   * Deletes a document and returns its id.
   * @throws DossierError `ERR_DOCUMENT_NOT_FOUND`; `ERR_STORE_UNAVAILABLE`.
   */
  delete(owner: string, id: number): Promise<number>;
  /** Every template, by id. */
  templates(): Template[];
}
