import { expect } from 'chai';
import { searchPlan } from '../../../lib/stores/sql/documents.js';

describe('the plan of a search on SQL (index or scan)', () => {
  it('counts a rare needle through the index and a common one by a scan, at the column share', () => {
    const plan = searchPlan(30_000, 1 / 8, 50);
    expect(plan.given(1).countIndexed).to.equal(true);
    expect(plan.given(3_749).countIndexed).to.equal(true);
    expect(plan.given(3_750).countIndexed).to.equal(false);
    expect(plan.given(7_500).countIndexed).to.equal(false);
  });

  it('reads the first page of a common needle in the order of the listing, and a deep page through the index sooner', () => {
    // 30,000 rows, 7,500 matches: the first page of 50 is met after some 200 rows in order.
    expect(searchPlan(30_000, 3 / 4, 50).given(7_500).pageIndexed).to.equal(false);
    // A page near the end is met after reading most rows: sorting the matches costs less.
    expect(searchPlan(30_000, 3 / 4, 7_500).given(7_500).pageIndexed).to.equal(true);
    // A rare needle: its candidates are sorted whatever the page.
    expect(searchPlan(30_000, 3 / 4, 50).given(30).pageIndexed).to.equal(true);
  });

  it('counts the candidates only as far as the choice needs', () => {
    expect(searchPlan(30_000, 1 / 8, 50).most).to.equal(3_750);
    expect(searchPlan(30_000, 1 / 8, 30_000).most).to.equal(30_000);
    // With no row, nothing is counted, and the (empty) scan is taken.
    const empty = searchPlan(0, 3 / 4, 50);
    expect(empty.most).to.equal(0);
    expect(empty.given(0)).to.deep.equal({ countIndexed: false, pageIndexed: false });
  });
});
