// @ts-check
// The documents workspace's one script (docs/workspace.md). It calls interface B through the workspace's
// session (`<base>/api/v1/…`, the same routes as `/api/v1/…`), never holds a key, and keeps each view's
// state in its URL: applying the list's filters puts them in the URL (a history entry) and shows the list
// that URL names, so that a link, a reload, Back and Forward all show the same list.
import { countWords } from './word-count.js';

const body = document.body;
const base = body.dataset.base || '/workspace';
const api = base + '/api/v1';

/**
 * The named templates (1 to 52) by group, for the picker and the list's filter; custom templates (53 to
 * 72) make a group of their own. A template missing here (renamed by configuration) goes under "Other".
 */
const GROUPS = [
  [
    'Writing',
    [
      'Freestyle',
      'Article',
      'Paragraph',
      'Content rewrite',
      'Content summary',
      'Content grammar',
      'FAQ',
      'How it works',
      'Pros and cons',
      'Review',
      'Testimonial',
    ],
  ],
  [
    'Blog',
    [
      'Blog post',
      'Blog intro',
      'Blog outline',
      'Blog section',
      'Blog paragraph',
      'Blog outro',
      'Blog talking points',
      'Blog title',
      'Blog listicle',
      'Blog tags',
    ],
  ],
  [
    'Marketing and ads',
    [
      'Advertisement',
      'Google advertisement',
      'Facebook advertisement',
      'Call to action',
      'Headline',
      'Subheadline',
      'Value proposition',
      'Pain-Agitate-Solution',
      'Product sheet',
      'Feature section',
      'Press release',
      'Newsletter',
      'Welcome email',
      'Push notification',
    ],
  ],
  [
    'Social and video',
    [
      'Social post',
      'Social post caption',
      'Tweet',
      'Twitter thread',
      'Hashtags',
      'Video title',
      'Video description',
      'Video script',
      'Video tags',
    ],
  ],
  ['Website and SEO', ['About us', 'Meta description', 'Meta keywords']],
  ['Company', ['Mission statement', 'Vision statement', 'Startup ideas', 'Startup names', 'Job description']],
];

/** @typedef {{ id: number, name: string, custom: boolean }} Template */
/** @typedef {{ id: number, name: string, template: { id: number, name: string }, prompt: string, creativity: number, result: string | null, words: number, favorite: boolean, created_at: string, updated_at: string }} Doc */
/** @typedef {Error & { status?: number, errors?: Record<string, string[]> }} ApiError */

/** @param {string} selector @param {ParentNode} [within] @returns {any} */
function $(selector, within = document) {
  return within.querySelector(selector);
}

/** An element with its text. @param {string} tag @param {string} [text] @param {string} [className] */
function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/** The session ended (or its key lost the scope): the server's page says so and signs in again. */
function signInAgain() {
  window.location.reload();
}

/**
 * One call of interface B through the session; resolves with the answer's JSON.
 * @param {string} method @param {string} path @param {Record<string, string>} [fields]
 * @param {AbortSignal} [signal] ends the call (its promise rejects) when the page no longer wants its answer
 * @returns {Promise<any>}
 */
async function call(method, path, fields, signal) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, signal };
  if (fields !== undefined) {
    init.headers['Content-Type'] = 'application/x-www-form-urlencoded';
    init.body = new URLSearchParams(fields).toString();
  }
  return answer(await fetch(api + path, init));
}

/** The JSON of an answer, or the error it carries. @param {Response} response @returns {Promise<any>} */
async function answer(response) {
  const json = await response.json().catch(() => ({}));
  if (response.ok) return json;
  if (response.status === 401 || response.status === 403) signInAgain();
  /** @type {ApiError} */
  const error = new Error(json.message || `The server answered ${response.status}.`);
  error.status = response.status;
  error.errors = json.errors || {};
  throw error;
}

/** Every template, by id. @returns {Promise<Template[]>} */
async function templates() {
  return (await call('GET', '/templates')).data;
}

/** The templates in their groups, in the groups' order. @param {Template[]} all @returns {[string, Template[]][]} */
function grouped(all) {
  const byName = new Map(all.filter((t) => !t.custom).map((t) => [t.name, t]));
  /** @type {[string, Template[]][]} */
  const groups = GROUPS.map(([group, names]) => [
    /** @type {string} */ (group),
    /** @type {string[]} */ (names).flatMap((name) => {
      const template = byName.get(name);
      byName.delete(name);
      return template ? [template] : [];
    }),
  ]);
  groups.push(['Other', [...byName.values()]]);
  groups.push(['Your templates', all.filter((t) => t.custom)]);
  return groups.filter(([, members]) => members.length > 0);
}

const numbers = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** `1,234.75 words` @param {number} words */
function wordsText(words) {
  return `${numbers.format(words)} ${words === 1 ? 'word' : 'words'}`;
}

/** A `<time>` of an ISO 8601 instant, in the reader's own time. @param {string} iso */
function time(iso) {
  const node = element('time', dates.format(new Date(iso)));
  node.setAttribute('datetime', iso);
  return node;
}

/** Shows `message` in the view's alert (`null`: hides it). @param {string | null} message @param {ParentNode} [within] */
function alertMessage(message, within = document) {
  const alert = $('[data-error]', within);
  alert.hidden = message === null;
  alert.textContent = message ?? '';
}

/** Clears the errors shown beside a form's fields. @param {HTMLFormElement} form */
function clearErrors(form) {
  form.querySelectorAll('.field-error').forEach((slot) => (slot.textContent = ''));
  form.querySelectorAll('[aria-invalid]').forEach((input) => input.removeAttribute('aria-invalid'));
}

/** Clears a field's error as soon as it is changed. @param {HTMLFormElement} form */
function clearErrorOnChange(form) {
  form.addEventListener('input', (event) => {
    const input = /** @type {HTMLElement} */ (event.target);
    if (!input.hasAttribute('aria-invalid')) return;
    input.removeAttribute('aria-invalid');
    const slot = $(`.field-error[data-field="${input.getAttribute('name')}"]`, form);
    if (slot) slot.textContent = '';
  });
}

/**
 * Shows each field's errors beside it and moves the focus to the first field at fault; true when the
 * error named a field of the form. @param {HTMLFormElement} form @param {ApiError} error
 */
function showFieldErrors(form, error) {
  let first = null;
  for (const [field, messages] of Object.entries(error.errors || {})) {
    const slot = $(`.field-error[data-field="${field}"]`, form);
    if (!slot) continue;
    slot.textContent = messages.join(' ');
    const input = form.querySelector(`[name="${field}"]`);
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      first ??= input;
    }
  }
  if (first instanceof HTMLElement) first.focus();
  return first !== null;
}

// ——— The list ———

/** The list's parameters the API takes, as the page's URL carries them. */
const LIST_PARAMETERS = ['search', 'search_by', 'template_id', 'favorite', 'sort_by', 'sort', 'per_page', 'page'];

/** The values a parameter has when the URL leaves it out. */
const LIST_DEFAULTS = { search_by: 'name', template_id: '1', sort_by: 'id', sort: 'desc', per_page: '10', page: '1' };

/** The list's URL for these values, defaults left out. @param {URLSearchParams} values */
function listUrl(values) {
  const query = new URLSearchParams();
  for (const name of LIST_PARAMETERS) {
    const value = values.get(name);
    if (value !== null && value !== '' && value !== LIST_DEFAULTS[name]) query.set(name, value);
  }
  if (!query.has('search')) query.delete('search_by');
  const text = query.toString();
  return text === '' ? base : `${base}?${text}`;
}

async function listView() {
  const form = /** @type {HTMLFormElement} */ ($('[data-filters]'));
  const templateSelect = $('[data-templates]');
  const summary = $('[data-summary]');
  const results = $('[data-results]');
  const value = (/** @type {URLSearchParams} */ url, /** @type {string} */ name) => url.get(name) ?? LIST_DEFAULTS[name] ?? '';
  /** The form as the page's URL says (the template's choice once the templates are there). */
  const fill = () => {
    const url = new URLSearchParams(window.location.search);
    form.search.value = value(url, 'search');
    form.search_by.value = value(url, 'search_by');
    templateSelect.value = value(url, 'template_id');
    form.favorite.value = value(url, 'favorite');
    form.order.value = `${value(url, 'sort_by')}.${value(url, 'sort')}`;
    form.per_page.value = value(url, 'per_page');
  };
  fill();

  const listed = templates().then((all) => {
    for (const [group, members] of grouped(all)) {
      const optgroup = /** @type {HTMLOptGroupElement} */ (element('optgroup'));
      optgroup.label = group;
      for (const template of members) optgroup.append(new Option(template.name, String(template.id)));
      templateSelect.append(optgroup);
    }
    templateSelect.value = value(new URLSearchParams(window.location.search), 'template_id');
    return all;
  });

  /** @type {AbortController | null} The list asked for last: an answer to any other is dropped, its request ended. */
  let asked = null;
  /** The query of the list shown, or being fetched. */
  let shown = '';
  /** Shows the list the page's URL names, whatever was asked before it. */
  const load = async () => {
    asked?.abort();
    const controller = new AbortController();
    asked = controller;
    shown = window.location.search;
    const url = new URLSearchParams(shown);
    const query = new URLSearchParams();
    for (const name of LIST_PARAMETERS) if (url.get(name)) query.set(name, /** @type {string} */ (url.get(name)));
    results.setAttribute('aria-busy', 'true');
    try {
      const all = await listed;
      const page = await call('GET', `/documents${query.toString() === '' ? '' : `?${query}`}`, undefined, controller.signal);
      if (asked !== controller) return; // answered as a later list was asked for: that one is shown
      alertMessage(null);
      showList(page, all, url);
    } catch (error) {
      if (asked !== controller) return;
      summary.textContent = '';
      alertMessage(/** @type {Error} */ (error).message);
    } finally {
      if (asked === controller) results.setAttribute('aria-busy', 'false');
    }
  };

  // Applying the filters is going to their URL (a history entry of the page's), then showing its list.
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = new URLSearchParams(/** @type {any} */ (new FormData(form)));
    const [sortBy, sort] = String(values.get('order')).split('.');
    values.set('sort_by', sortBy ?? 'id');
    values.set('sort', sort ?? 'desc');
    const next = listUrl(values);
    if (next !== window.location.pathname + window.location.search) window.history.pushState(null, '', next);
    load();
  });
  form.querySelectorAll('select').forEach((select) =>
    select.addEventListener('change', () => {
      if (select.name !== 'search_by' || form.search.value !== '') form.requestSubmit();
    }),
  );
  // Back and Forward between the page's own entries: the form and the list of the URL gone to.
  window.addEventListener('popstate', () => {
    if (window.location.search === shown) return; // the same list (a link to #main in between)
    fill();
    load();
  });
  await load();
}

/**
 * One page of documents: its rows, a summary that says what is shown, and the pages.
 * @param {{ data: Doc[], meta: { from: number | null, to: number | null, total: number, current_page: number, last_page: number } }} page
 * @param {Template[]} all @param {URLSearchParams} url
 */
function showList(page, all, url) {
  const { data, meta } = page;
  const templateName = all.find((t) => String(t.id) === (url.get('template_id') || '1'))?.name ?? '';
  const filtered = url.get('search') || url.get('favorite');
  const summary = $('[data-summary]');
  if (meta.total === 0) {
    summary.textContent = filtered
      ? `No ${templateName} document matches. Try other words or filters.`
      : `No ${templateName} documents yet.`;
    if (!filtered) {
      const link = /** @type {HTMLAnchorElement} */ (element('a', 'Write one'));
      link.href = `${base}/new${url.get('template_id') ? `?template_id=${url.get('template_id')}` : ''}`;
      summary.append(' ', link, '.');
    }
  } else {
    summary.textContent = `${templateName}: ${meta.from}–${meta.to} of ${meta.total} ${meta.total === 1 ? 'document' : 'documents'}`;
  }
  const rows = $('[data-rows]');
  rows.replaceChildren(...data.map(documentRow));
  $('[data-results]').hidden = data.length === 0;

  // The pages, when there are more than one (or the URL names one past the last); none for a list of one.
  const pages = $('[data-pages]');
  pages.hidden = meta.last_page <= 1 && meta.current_page <= meta.last_page;
  if (pages.hidden) return;
  const link = (/** @type {string} */ label, /** @type {number} */ number, /** @type {string} */ rel) => {
    if (number < 1 || number > meta.last_page || number === meta.current_page) {
      const off = element('span', label, 'button disabled');
      off.setAttribute('aria-disabled', 'true');
      return off;
    }
    const values = new URLSearchParams(url);
    values.set('page', String(number));
    const anchor = /** @type {HTMLAnchorElement} */ (element('a', label, 'button'));
    anchor.href = listUrl(values);
    anchor.rel = rel;
    return anchor;
  };
  pages.replaceChildren(
    link('Previous', meta.current_page - 1, 'prev'),
    element('span', `Page ${meta.current_page} of ${meta.last_page}`, 'page-of'),
    link('Next', meta.current_page + 1, 'next'),
  );
}

/** A row of the list. @param {Doc} doc */
function documentRow(doc) {
  const row = element('tr');
  const name = element('th');
  name.setAttribute('scope', 'row');
  const link = /** @type {HTMLAnchorElement} */ (element('a', doc.name));
  link.href = `${base}/documents/${doc.id}`;
  name.append(link);
  const cell = (/** @type {string} */ label, /** @type {string | Node} */ content, /** @type {string} */ className = '') => {
    const td = element('td', undefined, className);
    td.dataset.label = label;
    td.append(content);
    return td;
  };
  row.append(
    name,
    cell('Template', doc.template.name),
    cell('Words', numbers.format(doc.words), 'num'),
    cell('Favorite', favoriteButton(doc)),
    cell('Created', time(doc.created_at)),
    cell('Updated', time(doc.updated_at)),
  );
  return row;
}

/** A star that marks a document as a favorite, or not. @param {Doc} doc */
function favoriteButton(doc) {
  const button = /** @type {HTMLButtonElement} */ (element('button', undefined, 'star'));
  button.type = 'button';
  const show = (/** @type {boolean} */ favorite) => {
    button.setAttribute('aria-pressed', String(favorite));
    button.textContent = favorite ? '★' : '☆';
    button.title = favorite ? 'A favorite' : 'Not a favorite';
  };
  button.setAttribute('aria-label', `Favorite: ${doc.name}`);
  show(doc.favorite);
  button.addEventListener('click', async () => {
    const favorite = button.getAttribute('aria-pressed') !== 'true';
    try {
      show((await call('PATCH', `/documents/${doc.id}`, { favorite: favorite ? '1' : '0' })).data.favorite);
    } catch (error) {
      alertMessage(/** @type {Error} */ (error).message);
    }
  });
  return button;
}

// ——— A new document ———

async function newView() {
  const form = /** @type {HTMLFormElement} */ ($('[data-create]'));
  const picker = $('[data-picker]');
  const search = /** @type {HTMLInputElement} */ ($('#template-search'));
  const count = $('[data-template-count]');
  const wanted = new URLSearchParams(window.location.search).get('template_id') || '1';
  try {
    const all = await templates();
    for (const [group, members] of grouped(all)) {
      const section = element('div', undefined, 'group');
      const id = `group-${group.toLowerCase().replace(/[^a-z]+/g, '-')}`;
      const heading = element('h3', group);
      heading.id = id;
      const list = element('div', undefined, 'choices');
      list.setAttribute('role', 'group');
      list.setAttribute('aria-labelledby', id);
      for (const template of members) {
        const label = element('label', undefined, 'choice');
        const radio = /** @type {HTMLInputElement} */ (element('input'));
        radio.type = 'radio';
        radio.name = 'template_id';
        radio.value = String(template.id);
        radio.checked = radio.value === wanted;
        label.append(radio, ` ${template.name}`);
        label.dataset.name = template.name.toLowerCase();
        list.append(label);
      }
      section.append(heading, list);
      picker.append(section);
    }
    if (form.querySelector('input[name="template_id"]:checked') === null) {
      const first = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name="template_id"]'));
      if (first) first.checked = true;
    }
    const filter = () => {
      const words = search.value.trim().toLowerCase();
      let shown = 0;
      picker.querySelectorAll('.group').forEach((/** @type {HTMLElement} */ group) => {
        let inGroup = 0;
        group.querySelectorAll('.choice').forEach((/** @type {HTMLElement} */ choice) => {
          const match = words === '' || (choice.dataset.name ?? '').includes(words);
          choice.hidden = !match;
          if (match) inGroup += 1;
        });
        group.hidden = inGroup === 0;
        shown += inGroup;
      });
      count.textContent =
        words === '' ? `${shown} templates` : shown === 0 ? 'No template has that name.' : `${shown} of ${all.length} templates`;
    };
    search.addEventListener('input', filter);
    // Enter in the search field picks the first template shown rather than generating.
    search.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      const first = [...picker.querySelectorAll('.choice')].find((choice) => !choice.hidden);
      const radio = first?.querySelector('input');
      if (radio) {
        radio.checked = true;
        radio.focus();
      }
    });
    filter();
  } catch (error) {
    alertMessage(/** @type {Error} */ (error).message, form);
  }

  clearErrorOnChange(form);
  const generate = /** @type {HTMLButtonElement} */ ($('[data-generate]'));
  const stop = /** @type {HTMLButtonElement} */ ($('[data-stop]'));
  const output = $('[data-output]');
  const status = $('[data-status]');
  const result = $('[data-result]');
  /** @type {AbortController | null} */
  let running = null;

  stop.addEventListener('click', () => {
    running?.abort();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (running !== null) return;
    clearErrors(form);
    alertMessage(null, form);
    const fields = Object.fromEntries(
      ['name', 'prompt', 'creativity', 'template_id'].map((name) => [name, String(new FormData(form).get(name) ?? '')]),
    );
    const controller = new AbortController();
    running = controller;
    generate.disabled = true;
    stop.hidden = false;
    let text = '';
    try {
      const response = await fetch(`${api}/documents`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'text/event-stream', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        signal: controller.signal,
      });
      // Refusals (validation, session) come before any event, as JSON.
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) await answer(response);
      output.hidden = false;
      result.textContent = '';
      result.setAttribute('aria-busy', 'true');
      status.textContent = 'Writing…';
      stop.focus();
      for await (const { event: name, data } of serverSentEvents(/** @type {ReadableStream<Uint8Array>} */ (response.body))) {
        if (name === 'delta') {
          text += data.text;
          result.textContent = text;
          status.textContent = `Writing… ${wordsText(countWords(text))}`;
        } else if (name === 'document') {
          status.textContent = `Saved: ${wordsText(data.words)}. Opening it…`;
          window.location.assign(`${base}/documents/${data.id}`);
          return;
        } else if (name === 'error') {
          throw Object.assign(new Error(`${data.message} Nothing was saved.`), { status: data.status });
        }
      }
      throw new Error('The answer ended before the document was saved. Nothing was saved.');
    } catch (error) {
      if (controller.signal.aborted) {
        output.hidden = false;
        status.textContent = 'Stopped. Nothing was saved.';
        generate.focus();
      } else if (!showFieldErrors(form, /** @type {ApiError} */ (error))) {
        alertMessage(/** @type {Error} */ (error).message, form);
        if (text !== '') status.textContent = 'Stopped by an error.';
      }
    } finally {
      running = null;
      generate.disabled = false;
      stop.hidden = true;
      result.setAttribute('aria-busy', 'false');
    }
  });
}

/**
 * The events of a `text/event-stream` body, as they come (each `data` parsed as JSON).
 * @param {ReadableStream<Uint8Array>} stream
 * @returns {AsyncGenerator<{ event: string, data: any }>}
 */
async function* serverSentEvents(stream) {
  const reader = stream.pipeThrough(/** @type {any} */ (new TextDecoderStream())).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')) };
    }
  }
}

// ——— A document ———

async function documentView() {
  const id = body.dataset.id ?? '';
  const article = $('[data-document]');
  /** @type {Doc} */
  let doc;
  try {
    if (!/^[1-9]\d{0,15}$/.test(id)) throw new Error('Resource not found.');
    doc = (await call('GET', `/documents/${id}`)).data;
  } catch (error) {
    const message = /** @type {Error} */ (error).message;
    alertMessage(message === 'Resource not found.' ? 'There is no such document: it may have been deleted.' : message);
    return;
  }
  const form = /** @type {HTMLFormElement} */ ($('[data-edit]'));
  const nameInput = /** @type {HTMLInputElement} */ (form.elements.namedItem('name'));
  const text = /** @type {HTMLTextAreaElement} */ (form.elements.namedItem('result'));
  const words = $('[data-words]');
  const favorite = /** @type {HTMLButtonElement} */ ($('[data-favorite]'));

  const show = (/** @type {Doc} */ current) => {
    doc = current;
    document.title = `${doc.name} · Dossier workspace`;
    $('[data-title]').textContent = doc.name;
    const meta = $('[data-meta]');
    meta.replaceChildren(
      `${doc.template.name} · ${wordsText(doc.words)} · created `,
      time(doc.created_at),
      ' · updated ',
      time(doc.updated_at),
    );
    favorite.setAttribute('aria-pressed', String(doc.favorite));
    favorite.textContent = doc.favorite ? '★ Favorite' : '☆ Favorite';
    const facts = $('[data-facts]');
    facts.replaceChildren();
    for (const [term, value] of [
      ['Template', doc.template.name],
      ['Prompt', doc.prompt],
      ['Creativity', String(doc.creativity)],
    ]) {
      const row = element('div');
      row.append(element('dt', term), element('dd', value));
      facts.append(row);
    }
  };
  show(doc);
  nameInput.value = doc.name;
  text.value = doc.result ?? '';
  const countNow = () => (words.textContent = wordsText(countWords(text.value)));
  countNow();
  text.addEventListener('input', countNow);
  if (doc.template.id !== 1) $('[data-back]').href = `${base}?template_id=${doc.template.id}`;
  article.hidden = false;

  clearErrorOnChange(form);
  const saved = $('[data-saved]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    alertMessage(null);
    saved.textContent = 'Saving…';
    try {
      show((await call('PATCH', `/documents/${doc.id}`, { name: nameInput.value, result: text.value })).data);
      saved.textContent = 'Saved.';
    } catch (error) {
      saved.textContent = '';
      if (!showFieldErrors(form, /** @type {ApiError} */ (error))) alertMessage(/** @type {Error} */ (error).message);
    }
  });

  favorite.addEventListener('click', async () => {
    try {
      show((await call('PATCH', `/documents/${doc.id}`, { favorite: doc.favorite ? '0' : '1' })).data);
    } catch (error) {
      alertMessage(/** @type {Error} */ (error).message);
    }
  });

  const toolStatus = $('[data-tool-status]');
  $('[data-copy]').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text.value);
      toolStatus.textContent = 'Copied the text to the clipboard.';
    } catch {
      toolStatus.textContent = 'The browser did not allow copying: select the text and copy it yourself.';
    }
  });
  document.querySelectorAll('[data-download]').forEach((button) =>
    button.addEventListener('click', async () => {
      const format = /** @type {HTMLElement} */ (button).dataset.download ?? 'txt';
      try {
        const file = await exported(format, nameInput.value.trim() || doc.name, text.value);
        download(file, `${fileName(nameInput.value.trim() || doc.name)}.${format}`);
        toolStatus.textContent = `Downloaded ${fileName(nameInput.value.trim() || doc.name)}.${format}.`;
      } catch (error) {
        toolStatus.textContent = `The download failed: ${/** @type {Error} */ (error).message}`;
      }
    }),
  );

  const dialog = /** @type {HTMLDialogElement} */ ($('[data-confirm]'));
  $('[data-delete]').addEventListener('click', () => {
    $('[data-confirm-text]').textContent = `“${doc.name}” will be deleted for good.`;
    dialog.showModal();
  });
  $('[data-cancel]').addEventListener('click', () => dialog.close());
  $('[data-confirm-delete]').addEventListener('click', async () => {
    try {
      await call('DELETE', `/documents/${doc.id}`);
      window.location.assign(doc.template.id === 1 ? base : `${base}?template_id=${doc.template.id}`);
    } catch (error) {
      dialog.close();
      alertMessage(/** @type {Error} */ (error).message);
    }
  });
}

/** A file name from a document's name: letters, digits and dashes. @param {string} name */
function fileName(name) {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return slug || 'document';
}

/** The paragraphs of a text: blocks between blank lines, each a list of lines. @param {string} text */
function paragraphs(text) {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => block.split('\n'))
    .filter((lines) => lines.some((line) => line.trim() !== ''));
}

/** Escapes text for HTML. @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * The document as a file of `format`: Markdown, plain text, a web page or a Word document (made by the
 * `docx` package's browser build, loaded only when asked for).
 * @param {string} format @param {string} name @param {string} text @returns {Promise<Blob>}
 */
async function exported(format, name, text) {
  switch (format) {
    case 'md':
      return new Blob([`# ${name}\n\n${text.trim()}\n`], { type: 'text/markdown;charset=utf-8' });
    case 'html': {
      const body = paragraphs(text)
        .map((lines) => `<p>${lines.map(escapeHtml).join('<br>\n')}</p>`)
        .join('\n');
      const page = `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(name)}</title>\n</head>\n<body>\n<h1>${escapeHtml(name)}</h1>\n${body}\n</body>\n</html>\n`;
      return new Blob([page], { type: 'text/html;charset=utf-8' });
    }
    case 'docx': {
      const docx = await import(new URL('./docx.js', import.meta.url).href);
      const document = new docx.Document({
        creator: 'Dossier',
        title: name,
        sections: [
          {
            children: [
              new docx.Paragraph({ text: name, heading: docx.HeadingLevel.TITLE }),
              ...paragraphs(text).map(
                (lines) =>
                  new docx.Paragraph({
                    children: lines.map((line, i) => new docx.TextRun({ text: line, break: i > 0 ? 1 : 0 })),
                  }),
              ),
            ],
          },
        ],
      });
      return docx.Packer.toBlob(document);
    }
    default:
      return new Blob([`${name}\n\n${text.trim()}\n`], { type: 'text/plain;charset=utf-8' });
  }
}

/** Saves `file` as `name`, as a link with `download` does. @param {Blob} file @param {string} name */
function download(file, name) {
  const url = URL.createObjectURL(file);
  const link = /** @type {HTMLAnchorElement} */ (element('a'));
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const views = { list: listView, new: newView, document: documentView };
const run = views[/** @type {keyof typeof views} */ (body.dataset.view)];
if (run !== undefined) run();
