import { escapeHtml } from '../escape.js';
import { framedPage } from '../page-frame.js';

/** Where the workspace is, and what the page offers. */
export interface WorkspaceContext {
  /** `/workspace`, or `/prefix/workspace` when the contract is mounted under a prefix. */
  base: string;
  /** Whether the `.docx` download is offered (the optional peer dependency `docx` is installed). */
  docx: boolean;
}

/** The views of the workspace once signed in; the script fills each from the API. */
export type View = { name: 'list' } | { name: 'new' } | { name: 'document'; id: string };

const TITLES: Record<View['name'], string> = { list: 'Documents', new: 'New document', document: 'Document' };

/** The page around every view (the frame the panel has too): one stylesheet, one ES module, the bar. */
function layout(context: WorkspaceContext, title: string, main: string, bar: string, data = ''): string {
  return framedPage({ base: context.base, name: 'workspace', title, colorScheme: 'light dark', module: true, data, bar, main });
}

/**
 * The sign-in form: a key pasted once, and what went wrong last time; `next` is the workspace's page to
 * go back to once signed in.
 */
export function signInPage(context: WorkspaceContext, next: string, problem?: string, notice?: string): string {
  const alert =
    problem !== undefined
      ? `<p class="alert error" role="alert" id="sign-in-problem">${escapeHtml(problem)}</p>`
      : notice !== undefined
        ? `<p class="alert info" role="status">${escapeHtml(notice)}</p>`
        : '';
  return layout(
    context,
    'Sign in',
    `<section class="card narrow sign-in" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">Sign in to your workspace</h1>
<p class="muted">Write, find and export your documents. Paste an API key that has the <strong>documents</strong> scope: it is exchanged for a session, and this browser never keeps it.</p>
${alert}
<form method="post" action="${context.base}/sign-in" class="stack">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="off" required autofocus spellcheck="false"${problem !== undefined ? ' aria-invalid="true" aria-describedby="sign-in-problem"' : ''}>
<button type="submit" class="button primary">Sign in</button>
</form>
<p class="hint">No key yet? Ask your administrator for one with the documents scope.</p>
</section>`,
    '',
  );
}

/** The navigation of a signed-in page, the current view marked. */
function navigation(context: WorkspaceContext, view: View['name']): string {
  const current = (name: View['name']): string => (name === view ? ' aria-current="page"' : '');
  return `<nav class="nav" aria-label="Workspace">
<a href="${context.base}"${current('list')}>Documents</a>
<a href="${context.base}/new"${current('new')}>New document</a>
</nav>
<form method="post" action="${context.base}/sign-out" class="sign-out"><button type="submit" class="button quiet">Sign out</button></form>`;
}

/** The list of documents: filters (a GET form: its state is the URL), the table and the pages. */
function listView(base: string): string {
  return `<div class="heading"><h1>Documents</h1><a class="button primary" href="${base}/new">New document</a></div>
<form class="card filters" role="search" aria-label="Find documents" data-filters>
<div class="field grow"><label for="search">Search</label><input id="search" name="search" type="search" maxlength="200" placeholder="Words in the name or the text"></div>
<div class="field"><label for="search_by">In</label><select id="search_by" name="search_by"><option value="name">Name</option><option value="result">Text</option></select></div>
<div class="field"><label for="template_id">Template</label><select id="template_id" name="template_id" data-templates></select></div>
<div class="field"><label for="favorite">Show</label><select id="favorite" name="favorite"><option value="">All documents</option><option value="1">Favorites</option><option value="0">Not favorites</option></select></div>
<div class="field"><label for="order">Sort</label><select id="order" name="order"><option value="id.desc">Newest first</option><option value="id.asc">Oldest first</option><option value="name.asc">Name, A to Z</option><option value="name.desc">Name, Z to A</option></select></div>
<div class="field small"><label for="per_page">Per page</label><select id="per_page" name="per_page"><option>10</option><option>25</option><option>50</option><option>100</option></select></div>
<div class="field submit"><button type="submit" class="button">Apply</button></div>
</form>
<p class="summary" role="status" data-summary>Loading your documents…</p>
<p class="alert error" role="alert" data-error hidden></p>
<div class="card flush" data-results hidden>
<table class="documents">
<caption class="visually-hidden">Your documents</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Template</th><th scope="col" class="num">Words</th><th scope="col">Favorite</th><th scope="col">Created</th><th scope="col">Updated</th></tr></thead>
<tbody data-rows></tbody>
</table>
</div>
<nav class="pages" aria-label="Pages" data-pages hidden></nav>`;
}

/** A new document: the template picker, name, prompt, creativity; the text as it is written. */
function newView(): string {
  return `<div class="heading"><h1>New document</h1></div>
<form class="create" novalidate data-create>
<fieldset class="card picker" aria-describedby="template_id-error">
<legend>Template</legend>
<div class="field"><label for="template-search">Find a template</label><input id="template-search" type="search" placeholder="Blog, tweet, email…" aria-controls="templates" autocomplete="off"></div>
<p class="hint" role="status" data-template-count></p>
<div id="templates" class="templates" data-picker></div>
<p class="field-error" id="template_id-error" data-field="template_id"></p>
</fieldset>
<div class="card stack">
<div class="field"><label for="name">Name</label><input id="name" name="name" maxlength="128" required aria-describedby="name-error" placeholder="Spring launch announcement"><p class="field-error" id="name-error" data-field="name"></p></div>
<div class="field"><label for="prompt">What should it say?</label><textarea id="prompt" name="prompt" rows="5" maxlength="2048" required aria-describedby="prompt-hint prompt-error" placeholder="Describe the topic, the audience and the tone."></textarea><p class="hint" id="prompt-hint">Up to 2048 characters.</p><p class="field-error" id="prompt-error" data-field="prompt"></p></div>
<div class="field"><label for="creativity">Creativity</label><select id="creativity" name="creativity" aria-describedby="creativity-error"><option value="0">0 · precise</option><option value="0.25">0.25</option><option value="0.5" selected>0.5 · balanced</option><option value="0.75">0.75</option><option value="1">1 · inventive</option></select><p class="field-error" id="creativity-error" data-field="creativity"></p></div>
<div class="actions"><button type="submit" class="button primary" data-generate>Generate</button><button type="button" class="button danger" data-stop hidden>Stop</button></div>
<p class="alert error" role="alert" data-error hidden></p>
</div>
</form>
<section class="card output" aria-labelledby="output-title" data-output hidden>
<h2 id="output-title">Result</h2>
<p class="summary" role="status" data-status></p>
<div class="result" data-result aria-busy="false"></div>
</section>`;
}

/** A document: read, rename, edit, favorite, copy, download, delete. */
function documentView(base: string, docx: boolean): string {
  const word = docx ? '<button type="button" class="button" data-download="docx">Word (.docx)</button>' : '';
  return `<p class="back"><a href="${base}" data-back>← Documents</a></p>
<p class="alert error" role="alert" data-error hidden></p>
<article class="document" data-document hidden>
<div class="heading"><h1 data-title></h1><button type="button" class="button favorite" aria-pressed="false" data-favorite>Favorite</button></div>
<p class="meta" data-meta></p>
<form class="card stack edit" novalidate data-edit>
<div class="field"><label for="doc-name">Name</label><input id="doc-name" name="name" maxlength="128" required aria-describedby="doc-name-error"><p class="field-error" id="doc-name-error" data-field="name"></p></div>
<div class="field"><label for="doc-result">Text</label><textarea id="doc-result" name="result" rows="16" maxlength="20480" aria-describedby="word-count doc-result-error"></textarea><p class="hint" id="word-count" data-words aria-live="polite"></p><p class="field-error" id="doc-result-error" data-field="result"></p></div>
<div class="actions"><button type="submit" class="button primary">Save</button><p class="saved" role="status" data-saved></p></div>
</form>
<section class="card tools" aria-labelledby="export-title">
<h2 id="export-title">Copy and download</h2>
<div class="actions wrap-actions">
<button type="button" class="button" data-copy>Copy text</button>
<button type="button" class="button" data-download="md">Markdown (.md)</button>
<button type="button" class="button" data-download="txt">Plain text (.txt)</button>
<button type="button" class="button" data-download="html">Web page (.html)</button>
${word}
</div>
<p class="hint" role="status" data-tool-status></p>
</section>
<details class="card prompt"><summary>How it was written</summary><dl class="facts" data-facts></dl></details>
<section class="card danger-zone" aria-labelledby="delete-title">
<h2 id="delete-title">Delete</h2>
<p class="muted">Deleting a document cannot be undone.</p>
<button type="button" class="button danger" data-delete>Delete document</button>
</section>
</article>
<dialog class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-text" data-confirm>
<h2 id="confirm-title">Delete this document?</h2>
<p id="confirm-text" data-confirm-text></p>
<div class="actions"><button type="button" class="button" data-cancel>Cancel</button><button type="button" class="button danger" data-confirm-delete>Delete</button></div>
</dialog>`;
}

/** A signed-in view: the frame the script fills. */
export function viewPage(context: WorkspaceContext, view: View): string {
  const main =
    view.name === 'list' ? listView(context.base) : view.name === 'new' ? newView() : documentView(context.base, context.docx);
  const data = ` data-view="${view.name}"${view.name === 'document' ? ` data-id="${escapeHtml(view.id)}"` : ''}`;
  return layout(context, TITLES[view.name], main, navigation(context, view.name), data);
}

/** What the workspace shows while its store is down. */
export function unavailablePage(context: WorkspaceContext): string {
  return layout(
    context,
    'Unavailable',
    `<section class="card narrow"><h1>The workspace is unavailable</h1><p>Its store does not answer. Try again in a few seconds.</p></section>`,
    '',
  );
}
