import { expect } from 'chai';
import { OwnerListing } from '../../../lib/documents/owner-listing.js';
import type { StoredDocument } from '../../../lib/ports/document-store.js';
import { parseListOptions } from '../../../lib/documents/validation.js';
import type { DocumentListOptions } from '../../../lib/ports/document-service.js';

function doc(id: number, name: string, extra: Partial<StoredDocument> = {}): StoredDocument {
  return {
    id,
    owner: 'o',
    name,
    template_id: 1,
    prompt: 'p',
    creativity: 0.5,
    result: `result of ${name}`,
    words: 3,
    favorite: false,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

const names = (listing: OwnerListing, query: DocumentListOptions): string[] =>
  listing.page(parseListOptions(query)).docs.map((d) => d.name);

describe('OwnerListing', () => {
  it('orders by id whatever the order it was loaded in', () => {
    const listing = new OwnerListing([doc(3, 'c'), doc(1, 'a'), doc(2, 'b')]);
    expect(names(listing, { sort: 'asc' })).to.deep.equal(['a', 'b', 'c']);
  });

  it('reflects put and remove in a repeated query (the remembered filter is dropped)', () => {
    const listing = new OwnerListing([doc(1, 'apple'), doc(2, 'banana')]);
    expect(names(listing, { search: 'a' })).to.deep.equal(['banana', 'apple']);
    expect(names(listing, { sortBy: 'name' })).to.deep.equal(['banana', 'apple']);
    listing.put(doc(3, 'avocado'));
    expect(names(listing, { search: 'a' })).to.deep.equal(['avocado', 'banana', 'apple']);
    expect(names(listing, { sortBy: 'name', sort: 'asc' })).to.deep.equal(['apple', 'avocado', 'banana']);
    listing.put(doc(1, 'cherry'));
    expect(names(listing, { sortBy: 'name', sort: 'asc' })).to.deep.equal(['avocado', 'banana', 'cherry']);
    listing.remove(2);
    expect(names(listing, { search: 'a' })).to.deep.equal(['avocado']);
    expect(names(listing, { sortBy: 'name', sort: 'asc' })).to.deep.equal(['avocado', 'cherry']);
    expect(listing.size).to.equal(2);
  });

  it('pages from either end', () => {
    const listing = new OwnerListing(Array.from({ length: 25 }, (_, i) => doc(i + 1, `d${i + 1}`)));
    const page = listing.page(parseListOptions({ page: 3 }));
    expect(page.total).to.equal(25);
    expect(page.docs.map((d) => d.id)).to.deep.equal([5, 4, 3, 2, 1]);
    expect(listing.page(parseListOptions({ page: 3, sort: 'asc' })).docs.map((d) => d.id)).to.deep.equal([21, 22, 23, 24, 25]);
    expect(listing.page(parseListOptions({ page: 4 })).docs).to.deep.equal([]);
  });

  it('filters by template and favorite together with the search', () => {
    const listing = new OwnerListing([
      doc(1, 'a1'),
      doc(2, 'a2', { template_id: 6 }),
      doc(3, 'a3', { favorite: true }),
      doc(4, 'b4', { favorite: true }),
    ]);
    expect(names(listing, { favorite: true, search: 'a' })).to.deep.equal(['a3']);
    expect(names(listing, { templateId: 6 })).to.deep.equal(['a2']);
    expect(names(listing, { search: 'RESULT OF B', searchBy: 'result' })).to.deep.equal(['b4']);
  });
});

describe('OwnerListing, changed after its filters were asked for', () => {
  it('answers every remembered filter as a listing built afresh does, through puts and removes', () => {
    let state = 7;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
    const names = ['apple', 'Apple pie', 'éclair', 'Eclair', 'banana', 'ß', 'ss', 'zebra', 'a'];
    const current = new Map<number, StoredDocument>();
    const make = (id: number) =>
      doc(id, pick(names), {
        template_id: pick([1, 1, 6]),
        favorite: random() < 0.3,
        result: pick(['sweet loaf', 'tart', 'Apple']),
      });
    for (let id = 1; id <= 40; id += 1) current.set(id, make(id));
    const listing = new OwnerListing([...current.values()]);
    const queries = (
      [
        {},
        { sortBy: 'name', sort: 'asc' },
        { favorite: true },
        { search: 'a', sortBy: 'name' },
        { search: 'APPLE', searchBy: 'result' },
        { templateId: 6, sort: 'asc' },
      ] satisfies DocumentListOptions[]
    ).map((query) => parseListOptions({ ...query, perPage: 100 }));
    for (let step = 0; step < 300; step += 1) {
      for (const query of queries)
        expect(listing.page(query), `step ${step}`).to.deep.equal(new OwnerListing([...current.values()]).page(query));
      const id = 1 + Math.floor(random() * 50);
      if (random() < 0.3) {
        current.delete(id);
        listing.remove(id);
      } else {
        const changed = make(id);
        current.set(id, changed);
        listing.put(changed);
      }
    }
  });
});
