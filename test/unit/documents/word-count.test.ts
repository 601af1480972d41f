import { expect } from 'chai';
import { countWords } from '../../../lib/documents/word-count.js';

describe('countWords', () => {
  it('counts whitespace-separated words that hold a letter or digit', () => {
    expect(countWords('Hello, world — this is 2025!')).to.equal(5);
    expect(countWords("  don't   e-mail\n\tme ")).to.equal(3);
    expect(countWords('')).to.equal(0);
    expect(countWords(' — … ')).to.equal(0);
  });

  it('counts each Han, Hiragana, Katakana and Hangul character as 0.75 of a word, unrounded', () => {
    expect(countWords('日本語')).to.equal(2.25);
    expect(countWords('ひらがな')).to.equal(3);
    expect(countWords('カタカナ')).to.equal(3);
    expect(countWords('한국어')).to.equal(2.25);
    expect(countWords('中')).to.equal(0.75);
  });

  it('counts the long-vowel and iteration marks as the characters of their words', () => {
    expect(countWords('コーヒー')).to.equal(3);
    expect(countWords('時々')).to.equal(1.5);
  });

  it('adds CJK characters and other words of a mixed text', () => {
    expect(countWords('Tokyo 東京 is big')).to.equal(4.5);
    expect(countWords('東京Tower')).to.equal(2.5);
  });
});
