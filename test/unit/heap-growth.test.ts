import { expect } from 'chai';
import { HEAP_GROWING_PERCENT, holdHeapGrowth } from '../../adapters/cli/process.js';

describe("the long-running processes' heap growth", () => {
  const setBy = (execArgv: string[]): string[] => {
    const set: string[] = [];
    holdHeapGrowth((flags) => set.push(flags), execArgv);
    return set;
  };

  it('holds the old generation to 1.5 times what the last full collection kept', () => {
    expect(HEAP_GROWING_PERCENT).to.equal(50);
    expect(setBy([])).to.deep.equal(['--heap-growing-percent=50']);
    expect(setBy(['--enable-source-maps', '--max-old-space-size=512'])).to.deep.equal(['--heap-growing-percent=50']);
  });

  it("leaves Node's own setting when one is given on its command line", () => {
    expect(setBy(['--heap-growing-percent=0'])).to.deep.equal([]);
    expect(setBy(['--trace-gc', '--heap_growing_percent=200'])).to.deep.equal([]);
    expect(setBy(['--heap-growing-percent', '10'])).to.deep.equal([]);
  });
});
