import { expect } from 'chai';
import { KeyvDocumentStore } from '../../lib/documents/keyv-document-store.js';
import type { Backend } from '../../lib/ports/backend.js';
import type { DocumentQuery, DocumentStore } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';

/** A test's documents on the store it tests, and what they should list, there once its `beforeEach` hook has run. */
export interface ComparedDocuments {
  /** The documents of the store tested (namespace `dossier`). */
  tested: DocumentStore;
  /** The key-value path's ({@link KeyvDocumentStore}) on a memory store: what `tested` should list. */
  expected: DocumentStore;
}

/**
 * Registers, for each test of the suite (call it in the `describe`), the documents of the store at `url`
 * (namespace `dossier`, a 15 s deadline) and those of the key-value path on a memory store; both closed
 * after the test.
 */
export function comparedDocuments(url: string): ComparedDocuments {
  const clock = { now: () => Date.now() };
  const each = {} as ComparedDocuments;
  let stores: Backend[] = [];
  beforeEach(() => {
    const store = openBackend(url, { namespace: 'dossier', clock, timeoutMs: 15_000 });
    const reference = openBackend('memory://', { namespace: 'reference', clock });
    stores = [store, reference];
    each.tested = store.documents!;
    each.expected = new KeyvDocumentStore(reference.kv, reference.counters, clock);
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    stores = [];
  });
  return each;
}

/**
 * Expects `tested` to list for `owner` and `query` what `expected` lists: the same total, and the same
 * documents in the same order, `ids` naming each id of `tested` by the id of `expected`.
 */
export async function expectListedAlike(
  { tested, expected }: ComparedDocuments,
  ids: Map<number, number>,
  owner: string,
  query: DocumentQuery,
): Promise<void> {
  const [got, want] = await Promise.all([tested.list(owner, query), expected.list(owner, query)]);
  const what = JSON.stringify(query);
  expect(got.total, what).to.equal(want.total);
  expect(
    got.documents.map(({ id }) => ids.get(id)),
    what,
  ).to.deep.equal(want.documents.map(({ id }) => id));
}
