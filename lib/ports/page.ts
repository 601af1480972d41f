/** One page of a list (docs/contract.md §5): `limit` items after `cursor`, newest first. */
export interface PageQuery {
  /** 1 to 500. */
  limit: number;
  /** Where the previous page ended (its `nextCursor`); absent for the first page. */
  cursor?: string;
}

/** A page of a list: its items, how many the whole list holds, and the cursor of the next page. */
export interface Page<T> {
  items: T[];
  /** Exact: counted by the store, never estimated. */
  total: number;
  /** `null` on the last page. */
  nextCursor: string | null;
}
