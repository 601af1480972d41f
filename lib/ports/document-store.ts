/**
 * A document as a store keeps it: its template by id only, and its owner, which is never returned.
 * Its fields are named as the stores' columns and records always were (they outlive a version).
 */
export interface StoredDocument {
  id: number;
  /** The account whose document this is. */
  owner: string;
  name: string;
  /** The id of its template; the library's form names the template from it. */
  template_id: number;
  prompt: string;
  creativity: number;
  result: string;
  words: number;
  favorite: boolean;
  created_at: string;
  updated_at: string;
}

/** A document to store: everything but the id, which the store hands out. */
export type NewStoredDocument = Omit<StoredDocument, 'id'>;

/** What an update changes: the fields given (the others stay as they are) and the time of the change. */
export interface StoredChanges {
  name?: string;
  result?: string;
  /** The word count of `result`, given with it. */
  words?: number;
  favorite?: boolean;
  updated_at: string;
}

/** A listing, as the document service parsed it (docs/contract.md §3). */
export interface DocumentQuery {
  /** Text to look for, already in its search form (`searchText`); absent: no search. */
  search?: string;
  searchBy: 'name' | 'result';
  templateId: number;
  /** Only favorites (true) or only the others (false); absent: both. */
  favorite?: boolean;
  sortBy: 'id' | 'name';
  sort: 'asc' | 'desc';
  perPage: number;
  /** From 1. */
  page: number;
}

/** One page of a listing and how many documents match in all. */
export interface DocumentRows {
  documents: StoredDocument[];
  total: number;
}

/**
 * Where documents live. Every method is scoped to an owner: another owner's document does not exist.
 * A listing means what lib/records/stored-document.ts says (search by `searchText` substring, name
 * order by `nameSortKey`, ties by id), the same on every store, and a change made by any process
 * sharing the store is seen by the next call of every other one.
 */
export interface DocumentStore {
  /**
   * Stores a new document under a fresh id: a positive integer, larger than every id the store handed
   * out before, to any process.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`; nothing is stored then.
   */
  create(document: NewStoredDocument): Promise<StoredDocument>;
  /** The owner's document `id`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  get(owner: string, id: number): Promise<StoredDocument | undefined>;
  /**
   * Applies `changes` to the owner's document `id` in one step: a concurrent update of other fields
   * keeps them, and a deleted document stays deleted. Returns the document as changed, or `undefined`
   * when there is no such document.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined>;
  /** Deletes the owner's document `id`; false when there was none. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  delete(owner: string, id: number): Promise<boolean>;
  /** One page of the owner's documents that `query` matches, and their number. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  list(owner: string, query: DocumentQuery): Promise<DocumentRows>;
}
