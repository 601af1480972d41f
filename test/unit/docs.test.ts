import { expect } from 'chai';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { projectRoot } from '../support/paths.js';
import { pages, slug } from '../support/snippets.js';

/** The lines of a page outside its code fences, and the problems of its fences. */
function readPage(page: string): { prose: string[]; fenceProblems: string[] } {
  const prose: string[] = [];
  const fenceProblems: string[] = [];
  let open: number | undefined;
  readFileSync(join(projectRoot(), page), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      if (open === undefined) {
        if (fence) open = index + 1;
        else prose.push(line);
      } else if (fence) {
        // Inside a block, only a bare fence closes it: one followed by text goes on as code, unseen.
        if (fence[2]!.trim() === '') open = undefined;
        else fenceProblems.push(`${page}:${index + 1}: a fence with text after it inside the block opened at line ${open}`);
      }
    });
  if (open !== undefined) fenceProblems.push(`${page}:${open}: a code fence that is never closed`);
  return { prose, fenceProblems };
}

/** The anchors of a page's headings. */
function anchors(page: string): Set<string> {
  return new Set(
    readPage(page)
      .prose.map((line) => /^#{1,6}\s+(.*)$/.exec(line)?.[1])
      .filter((heading): heading is string => heading !== undefined)
      .map(slug),
  );
}

describe('the README and docs/', () => {
  it('close every code fence they open', () => {
    expect(pages().flatMap((page) => readPage(page).fenceProblems)).to.deep.equal([]);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      for (const line of readPage(page).prose) {
        // Inline code is not a link, even when it looks like one.
        const text = line.replace(/`[^`]*`/g, '');
        for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
          const [path, anchor] = target!.split('#') as [string, string | undefined];
          const file = path === '' ? join(projectRoot(), page) : join(projectRoot(), dirname(page), decodeURI(path));
          if (!existsSync(file)) {
            broken.push(`${page}: ${target} (no such file)`);
          } else if (anchor !== undefined) {
            const linked = relative(projectRoot(), file);
            if (!statSync(file).isFile() || !linked.endsWith('.md') || !anchors(linked).has(anchor)) {
              broken.push(`${page}: ${target} (no such heading)`);
            }
          }
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('keep the README short: what Dossier is, how to start, and links', () => {
    expect(readFileSync(join(projectRoot(), 'README.md'), 'utf8').split('\n').length).to.be.at.most(250);
  });
});
