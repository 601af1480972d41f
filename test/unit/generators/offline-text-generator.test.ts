import { expect } from 'chai';
import { NAMED_TEMPLATES } from '../../../lib/documents/templates.js';
import { DRAFT_KINDS } from '../../../lib/generators/offline-drafts.js';
import { OFFLINE_WORDS_PER_PIECE, OfflineTextGenerator } from '../../../lib/generators/offline-text-generator.js';

const PROMPT = 'Write a blog post about the benefits of remote work for small teams. Remote teams save commuting time.';

async function draft(templateName: string, prompt = PROMPT, creativity = 0.5): Promise<string> {
  const template = NAMED_TEMPLATES.find((t) => t.name === templateName);
  return new OfflineTextGenerator().generate(
    { templateName, instruction: template?.instruction ?? 'Write.', prompt, creativity },
    new AbortController().signal,
  );
}

describe('OfflineTextGenerator', () => {
  it('has a writer of its own for each of the 52 named templates', () => {
    expect([...DRAFT_KINDS].sort()).to.deep.equal(NAMED_TEMPLATES.map((t) => t.name).sort());
  });

  it('writes a non-empty text for every named template, built from the prompt', async () => {
    for (const { name } of NAMED_TEMPLATES) {
      const text = await draft(name);
      expect(text.trim(), name).to.not.equal('');
      if (!['Content grammar', 'Content rewrite', 'Content summary'].includes(name)) {
        expect(text.toLowerCase(), name).to.match(/remote|small teams|benefits/);
      }
    }
  });

  it('is deterministic: same prompt, template and creativity give the same text', async () => {
    for (const { name } of NAMED_TEMPLATES) expect(await draft(name), name).to.equal(await draft(name));
  });

  it('varies wording with creativity', async () => {
    const texts = new Set(await Promise.all([0, 0.25, 0.5, 0.75, 1].map((c) => draft('Freestyle', PROMPT, c))));
    expect(texts.size).to.be.greaterThan(1);
  });

  it('writes a blog outline as numbered sections with bullet points', async () => {
    const text = await draft('Blog outline');
    expect(text).to.match(/^1\. /m);
    expect(text).to.match(/^2\. /m);
    expect(text).to.match(/^ {3}- /m);
  });

  it('keeps a tweet within 280 characters, also for a long prompt', async () => {
    for (const prompt of [PROMPT, 'word '.repeat(400), '東京'.repeat(500)]) {
      const text = await draft('Tweet', prompt);
      expect(Array.from(text).length).to.be.at.most(280);
    }
  });

  it('numbers a Twitter thread, each tweet within 280 characters', async () => {
    const tweets = (await draft('Twitter thread', 'x '.repeat(300) + PROMPT)).split('\n\n');
    expect(tweets.length).to.be.at.least(4);
    tweets.forEach((tweet, i) => {
      expect(tweet.startsWith(`${i + 1}/`)).to.equal(true);
      expect(Array.from(tweet).length).to.be.at.most(280);
    });
  });

  it('writes hashtags that start with # and hold no spaces', async () => {
    const tags = (await draft('Hashtags')).split(' ');
    expect(tags.length).to.be.at.least(5);
    for (const tag of tags) expect(tag).to.match(/^#[\p{L}\p{N}]+$/u);
  });

  it('writes a FAQ of questions and answers', async () => {
    const text = await draft('FAQ');
    expect(text.match(/^Q: .+\?$/gm)).to.have.length(5);
    expect(text.match(/^A: /gm)).to.have.length(5);
  });

  it('keeps a meta description near 155 characters, never over 160', async () => {
    for (const prompt of [PROMPT, 'a '.repeat(200) + 'very long topic '.repeat(30)]) {
      const length = Array.from(await draft('Meta description', prompt)).length;
      expect(length).to.be.within(80, 160);
    }
  });

  it('keeps Google ad headlines within 30 characters and descriptions within 90', async () => {
    const lines = (
      await draft('Google advertisement', 'Introducing an extraordinarily comprehensive accounting platform for freelancers')
    ).split('\n');
    for (const line of lines.filter((l) => l.startsWith('Headline')))
      expect(line.replace(/^Headline \d: /, '').length).to.be.at.most(30);
    for (const line of lines.filter((l) => l.startsWith('Description')))
      expect(line.replace(/^Description \d: /, '').length).to.be.at.most(90);
  });

  it('labels the parts of Pain-Agitate-Solution and of pros and cons', async () => {
    expect(await draft('Pain-Agitate-Solution')).to.match(/^Pain: [^]*^Agitate: [^]*^Solution: /m);
    expect(await draft('Pros and cons')).to.match(/^Pros\n- [^]*^Cons\n- /m);
  });

  it('corrects grammar without inventing text', async () => {
    expect(await draft('Content grammar', 'i think teh  results are are good ,and we recieve them')).to.equal(
      'I think the results are good, and we receive them.',
    );
  });

  it('summarizes a long text into fewer sentences', async () => {
    const text =
      'Cats sleep a lot. Remote work helps teams focus. Teams that work remotely save time. The weather was fine. Lunch was late. Remote teams hire widely.';
    const summary = await draft('Content summary', text);
    expect(summary.startsWith('Summary: ')).to.equal(true);
    expect(summary.split('. ').length).to.be.below(6);
  });

  it('writes free prose for a custom template', async () => {
    const text = await draft('My company style', PROMPT);
    expect(text.toLowerCase()).to.include('remote work');
  });

  it('streams the same draft a few words at a time', async () => {
    const generator = new OfflineTextGenerator();
    for (const { name, instruction } of NAMED_TEMPLATES) {
      const request = { templateName: name, instruction, prompt: PROMPT, creativity: 0.5 };
      const pieces: string[] = [];
      for await (const piece of generator.stream(request, new AbortController().signal)) pieces.push(piece);
      expect(pieces.join(''), name).to.equal(await generator.generate(request, new AbortController().signal));
      for (const piece of pieces) expect(piece.trim().split(/\s+/u).length, name).to.be.at.most(OFFLINE_WORDS_PER_PIECE);
    }
  });

  it('stops streaming when its signal aborts', async () => {
    const controller = new AbortController();
    const request = { templateName: 'Blog article', instruction: 'Write.', prompt: PROMPT, creativity: 0.5 };
    const pieces: string[] = [];
    let caught: unknown;
    try {
      for await (const piece of new OfflineTextGenerator().stream(request, controller.signal)) {
        pieces.push(piece);
        if (pieces.length === 2) controller.abort(new Error('gone'));
      }
    } catch (error) {
      caught = error;
    }
    expect(pieces).to.have.length(2);
    expect((caught as Error).message).to.equal('gone');
  });
});
