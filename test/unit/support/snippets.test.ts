import { expect } from 'chai';
import { parseSnippets, withPorts } from '../../support/snippets.js';

describe('the snippet reader of the docs tests', () => {
  const page = [
    '# A page',
    '',
    '<!-- snippets after: README.md#quick-start -->',
    '',
    '```sh',
    'echo plain',
    '```',
    '',
    '<!-- not run: it needs Docker -->',
    '```sh',
    'docker compose up',
    '```',
    '<!-- serves http://127.0.0.1:3000/healthz -->',
    '```sh',
    'npm start',
    '```',
    '<!-- runs until stopped, ready when it prints "watching" -->',
    '```ts',
    "console.log('watching');",
    '```',
    '<!-- something else -->',
    '```text',
    'a diagram',
    '```',
    '````sh',
    '```',
    'a fence inside a longer one',
    '````',
  ].join('\n');

  it('reads each fenced block with its language, its line and the marker above it', () => {
    const { snippets, after } = parseSnippets('docs/x.md', page);
    expect(after).to.equal('README.md#quick-start');
    expect(snippets.map(({ line, language, code }) => ({ line, language, code }))).to.deep.equal([
      { line: 5, language: 'sh', code: 'echo plain\n' },
      { line: 10, language: 'sh', code: 'docker compose up\n' },
      { line: 14, language: 'sh', code: 'npm start\n' },
      { line: 18, language: 'ts', code: "console.log('watching');\n" },
      { line: 22, language: 'text', code: 'a diagram\n' },
      { line: 25, language: 'sh', code: '```\na fence inside a longer one\n' },
    ]);
    expect(snippets[0]).to.not.have.any.keys('notRun', 'serves', 'readyWhenPrinted', 'unknownMarker');
    expect(snippets[1]!.notRun).to.equal('it needs Docker');
    expect(snippets[2]!.serves).to.equal('http://127.0.0.1:3000/healthz');
    expect(snippets[3]!.readyWhenPrinted).to.equal('watching');
    expect(snippets[4]!.unknownMarker).to.equal('something else');
  });

  it("puts the runner's free ports in place of those the docs show, and only whole numbers", () => {
    const ports = { 3000: 41000, 5353: 41001, 8080: 41002 };
    expect(withPorts('curl http://127.0.0.1:3000/x; DOSSIER_DNS_SERVERS=127.0.0.1:5353; listen(8080)', ports)).to.equal(
      'curl http://127.0.0.1:41000/x; DOSSIER_DNS_SERVERS=127.0.0.1:41001; listen(41002)',
    );
    expect(withPorts('30000 13000 80800', ports)).to.equal('30000 13000 80800');
  });
});
