import { expect } from 'chai';
import { StreamedText } from '../../../lib/documents/streamed-text.js';

function pass(pieces: string[], max = 100): { out: string[]; text: StreamedText } {
  const text = new StreamedText(max);
  return { out: pieces.map((piece) => text.push(piece)), text };
}

describe('StreamedText', () => {
  it('passes pieces on as they come, so that they join into the trimmed text', () => {
    const pieces = ['  \n Hello', ' ', 'wor', 'ld!  ', '\n', '  Next.', '  \n\t'];
    const { out, text } = pass(pieces);
    expect(out).to.deep.equal(['Hello', '', ' wor', 'ld!', '', '  \n  Next.', '']);
    expect(out.join('')).to.equal(pieces.join('').trim());
    expect(text.text).to.equal(pieces.join('').trim());
    expect(text.full).to.equal(false);
  });

  it('holds back whitespace at the end of a piece until text follows it', () => {
    const { out } = pass(['a ', ' ', 'b']);
    expect(out).to.deep.equal(['a', '', '  b']);
  });

  it('stops at the cap, counting code points, and says it is full', () => {
    const { out, text } = pass(['🎉🎉', '🎉🎉x', 'more'], 3);
    expect(out).to.deep.equal(['🎉🎉', '🎉', '']);
    expect(text.text).to.equal('🎉🎉🎉');
    expect(Array.from(text.text)).to.have.length(3);
    expect(text.full).to.equal(true);
  });

  it('gives nothing for whitespace only', () => {
    const { out, text } = pass([' ', '\n\t ']);
    expect(out).to.deep.equal(['', '']);
    expect(text.text).to.equal('');
  });
});
