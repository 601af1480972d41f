import type { UsageDay } from '../../../lib/index.js';
import { escapeHtml } from '../escape.js';
import { framedPage } from '../page-frame.js';
import type { KeyJson } from './keys.js';

/** The kinds of lookup, in the order the usage table and the chart show them. */
const KINDS = ['dns', 'whois', 'ip', 'ssl'] as const;

/** `2026-11-23 15:42` (UTC) of an ISO 8601 instant; only the date at midnight. */
function minute(iso: string): string {
  const text = iso.slice(0, 16).replace('T', ' ');
  return text.endsWith(' 00:00') ? text.slice(0, 10) : text;
}

/** A `<time>` element for an instant, shown to the minute in UTC. */
export function time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(minute(iso))}</time>`;
}

/** Where the page's links point: the prefix the router is mounted under, then `/admin`. */
export interface PageContext {
  /** `/admin`, or `/prefix/admin` when the router is mounted under a prefix. */
  base: string;
}

/** The page around every view (the frame the workspace has too): one stylesheet, one script, the bar. */
function layout(page: PageContext, title: string, main: string, signedIn: boolean): string {
  const bar = signedIn
    ? `<form method="post" action="${page.base}/sign-out" class="sign-out"><button type="submit" class="button quiet">Sign out</button></form>`
    : '';
  return framedPage({ base: page.base, name: 'admin', title, colorScheme: 'light', module: false, bar, main });
}

/** What `/admin` shows when `DOSSIER_ADMIN_TOKEN` is not set. */
export function offPage(page: PageContext): string {
  return layout(
    page,
    'Panel off',
    `<section class="card narrow">
<h1>The administration panel is off</h1>
<p>Dossier serves this panel and its API only when an admin token is configured.</p>
<p>To turn it on, set <code>DOSSIER_ADMIN_TOKEN</code> to a random secret of at least 32 characters and restart the server, for example:</p>
<pre><code>DOSSIER_ADMIN_TOKEN="$(openssl rand -hex 32)" npm start</code></pre>
<p>Then sign in here with that token. Keys can always be managed with the command line: <code>npx dossier keys --help</code>.</p>
</section>`,
    false,
  );
}

/** The sign-in form, with what went wrong last time. */
export function signInPage(page: PageContext, problem?: string): string {
  const alert = problem === undefined ? '' : `<p class="alert error" role="alert">${escapeHtml(problem)}</p>`;
  return layout(
    page,
    'Sign in',
    `<section class="card narrow">
<h1>Sign in</h1>
<p class="muted">Use the value of <code>DOSSIER_ADMIN_TOKEN</code>.</p>
${alert}
<form method="post" action="${page.base}/sign-in" class="stack">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus spellcheck="false">
<button type="submit" class="button primary">Sign in</button>
</form>
</section>`,
    false,
  );
}

/** The panel's home: the create form, the place a new key is shown once, and the keys table. */
export function keysPage(page: PageContext, listing: KeysListing, now: number): string {
  const today = new Date(now).toISOString().slice(0, 10);
  const { keys, total, filters } = listing;
  const filtered = filters.search !== undefined || filters.status !== undefined;
  return layout(
    page,
    'Keys',
    `<div class="heading"><h1>API keys</h1><p class="muted">${total} ${total === 1 ? 'key' : 'keys'}${filtered ? ' found' : ''} · times in UTC</p></div>
<section class="card" aria-labelledby="create-title">
<h2 id="create-title">Create a key</h2>
<form class="create-form" data-action="create" novalidate>
<div class="field grow"><label for="new-name">Name</label><input id="new-name" name="name" required maxlength="128" placeholder="billing-service"><p class="field-error" data-field="name"></p></div>
<div class="field"><label for="new-owner">Owner</label><input id="new-owner" name="owner" maxlength="128" placeholder="optional" aria-describedby="owner-hint"><p class="hint" id="owner-hint">Whose documents it sees</p><p class="field-error" data-field="owner"></p></div>
<div class="field small"><label for="new-limit">Daily limit</label><input id="new-limit" name="daily_limit" type="number" min="1" step="1" inputmode="numeric" placeholder="default"><p class="field-error" data-field="daily_limit"></p></div>
<div class="field small"><label for="new-expires">Expires</label><input id="new-expires" name="expires_at" type="date" min="${today}"><p class="field-error" data-field="expires_at"></p></div>
<fieldset class="field scopes"><legend>Scopes</legend>
<label class="check"><input type="checkbox" name="scopes" value="lookup" checked> lookup</label>
<label class="check"><input type="checkbox" name="scopes" value="documents" checked> documents</label>
<p class="field-error" data-field="scopes"></p></fieldset>
<div class="field submit"><button type="submit" class="button primary">Create key</button></div>
</form>
<p class="alert error" role="alert" data-form-error hidden></p>
</section>
${newKeyPanel()}
<section class="card flush" aria-labelledby="keys-title">
<h2 id="keys-title" class="pad">Keys</h2>
${keyFilters(filters)}
<div class="table-wrap">
<table class="keys" id="keys">
<thead><tr><th scope="col">Name</th><th scope="col">Owner</th><th scope="col">Scopes</th><th scope="col" class="num">Daily limit</th><th scope="col" class="num">Used today</th><th scope="col">Created</th><th scope="col">Status</th><td class="actions"><span class="visually-hidden">Actions</span></td></tr></thead>
<tbody>
${keys.length === 0 ? `<tr class="empty"><td colspan="8">${filtered ? 'No key matches.' : 'No keys yet. Create one above.'}</td></tr>` : keys.map((key) => keyRow(page, key)).join('\n')}
</tbody>
</table>
</div>
${pager(page, listing)}
</section>
${confirmDialog()}`,
    true,
  );
}

/** One page of the keys table, as the panel's URL asks for it (docs/contract.md §5). */
export interface KeysListing {
  keys: KeyJson[];
  /** How many keys the filters keep. */
  total: number;
  filters: { search?: string; status?: string };
  nextCursor: string | null;
  previousCursor: string | null;
}

/** The search field and the status filter: a GET form, so that its state is the page's URL. */
function keyFilters({ search, status }: KeysListing['filters']): string {
  const option = (value: string, label: string): string =>
    `<option value="${value}"${(status ?? '') === value ? ' selected' : ''}>${label}</option>`;
  return `<form class="key-filters pad" method="get" role="search" aria-label="Keys">
<div class="field grow"><label for="key-search">Search</label><input id="key-search" type="search" name="search" maxlength="200" value="${escapeHtml(search ?? '')}" placeholder="name, owner or id"></div>
<div class="field small"><label for="key-status">Status</label><select id="key-status" name="status">${option('', 'All')}${option('active', 'Active')}${option('revoked', 'Revoked')}${option('expired', 'Expired')}</select></div>
<div class="field submit"><button type="submit" class="button">Search</button></div>
</form>`;
}

/** **Previous** and **Next**, links that keep the filters. */
function pager(page: PageContext, { filters, nextCursor, previousCursor }: KeysListing): string {
  const link = (cursor: { name: string; value: string }): string => {
    const query = new URLSearchParams();
    if (filters.search !== undefined) query.set('search', filters.search);
    if (filters.status !== undefined) query.set('status', filters.status);
    query.set(cursor.name, cursor.value);
    return escapeHtml(`${page.base}?${query.toString()}`);
  };
  const previous =
    previousCursor === null
      ? '<span class="button quiet" aria-disabled="true">Previous</span>'
      : `<a class="button" rel="prev" href="${link({ name: 'before', value: previousCursor })}">Previous</a>`;
  const next =
    nextCursor === null
      ? '<span class="button quiet" aria-disabled="true">Next</span>'
      : `<a class="button" rel="next" href="${link({ name: 'cursor', value: nextCursor })}">Next</a>`;
  return `<nav class="pager pad" aria-label="Pages of keys">${previous}${next}</nav>`;
}

function keyRow(page: PageContext, key: KeyJson): string {
  const sub = [`<span class="sub mono">${escapeHtml(key.id)}</span>`];
  if (key.expires_at !== null) {
    sub.push(
      `<span class="sub">${key.status === 'expired' ? 'expired' : 'expires'} ${escapeHtml(minute(key.expires_at))}</span>`,
    );
  }
  const revoke =
    key.status === 'active'
      ? `<button type="button" class="button danger small" data-action="revoke" data-id="${escapeHtml(key.id)}" data-name="${escapeHtml(key.name)}">Revoke</button>`
      : '';
  return `<tr data-id="${escapeHtml(key.id)}">
<td data-label="Name"><a href="${page.base}/keys/${encodeURIComponent(key.id)}" class="key-name">${escapeHtml(key.name)}</a>${sub.join('')}</td>
<td data-label="Owner" class="mono">${escapeHtml(key.owner)}</td>
<td data-label="Scopes">${key.scopes.map(escapeHtml).join(', ')}</td>
<td data-label="Daily limit" class="num">${key.daily_limit}</td>
<td data-label="Used today" class="num">${key.used_today}</td>
<td data-label="Created">${time(key.created_at)}</td>
<td data-label="Status"><span class="badge ${key.status}">${key.status}</span></td>
<td class="actions">${revoke}</td>
</tr>`;
}

/** Where the script shows a new plaintext key and its Copy button, once; always empty when served. */
function newKeyPanel(): string {
  return `<section class="card new-key" data-new-key-panel hidden aria-live="polite">
<h2>Copy the new key now</h2>
<p>This is the only time it is shown. Store it where the program that uses it can read it.</p>
<div class="copy-row"></div>
</section>`;
}

/** The in-page confirmation asked before a revoke or a roll. */
function confirmDialog(): string {
  return `<dialog id="confirm" aria-labelledby="confirm-title">
<form method="dialog">
<h2 id="confirm-title">Are you sure?</h2>
<p data-confirm-text></p>
<div class="dialog-buttons"><button value="cancel" class="button quiet">Cancel</button><button value="confirm" class="button danger">Confirm</button></div>
</form>
</dialog>`;
}

/** One key: its fields, the changes it allows, and its lookups per UTC day as a chart and a table. */
export function keyPage(page: PageContext, key: KeyJson, history: UsageDay[], watches = ''): string {
  const total = history.reduce((sum, day) => sum + day.total, 0);
  const field = (label: string, value: string): string => `<div><dt>${label}</dt><dd>${value}</dd></div>`;
  const active = key.status === 'active';
  const actions = active
    ? `<section class="card" aria-labelledby="manage-title">
<h2 id="manage-title">Manage</h2>
<div class="manage">
<form data-action="limit" data-id="${escapeHtml(key.id)}" class="inline-form" novalidate>
<div class="field small"><label for="limit">Daily limit</label><input id="limit" name="daily_limit" type="number" min="1" step="1" inputmode="numeric" value="${key.daily_limit}" required><p class="field-error" data-field="daily_limit"></p></div>
<button type="submit" class="button">Save limit</button>
</form>
<form data-action="roll" data-id="${escapeHtml(key.id)}" data-name="${escapeHtml(key.name)}" class="inline-form" novalidate>
<div class="field small"><label for="grace">Grace period (seconds)</label><input id="grace" name="grace_seconds" type="number" min="0" step="1" inputmode="numeric" value="0" aria-describedby="grace-hint"><p class="hint" id="grace-hint">How long the old secret keeps working</p><p class="field-error" data-field="grace_seconds"></p></div>
<button type="submit" class="button">Roll key</button>
</form>
<div class="inline-form end"><button type="button" class="button danger" data-action="revoke" data-id="${escapeHtml(key.id)}" data-name="${escapeHtml(key.name)}" data-after="reload">Revoke</button></div>
</div>
<p class="alert error" role="alert" data-form-error hidden></p>
</section>
${newKeyPanel()}`
    : '';
  return layout(
    page,
    key.name,
    `<p class="back"><a href="${page.base}">← All keys</a></p>
<div class="heading"><h1>${escapeHtml(key.name)}</h1><span class="badge ${key.status}" data-testid="status">${key.status}</span></div>
<section class="card">
<dl class="facts">
${field('ID', `<span class="mono">${escapeHtml(key.id)}</span>`)}
${field('Owner', `<span class="mono">${escapeHtml(key.owner)}</span>`)}
${field('Scopes', key.scopes.map(escapeHtml).join(', '))}
${field('Daily limit', String(key.daily_limit))}
${field('Used today', String(key.used_today))}
${field('Created', time(key.created_at))}
${field('Expires', key.expires_at === null ? 'never' : time(key.expires_at))}
${key.revoked_at === null ? '' : field('Revoked', time(key.revoked_at))}
</dl>
</section>
${actions}
<section class="card" aria-labelledby="usage-title">
<h2 id="usage-title">Lookups per day <span class="muted">last ${history.length} days, UTC</span></h2>
${usageChart(history, total)}
<div class="legend" aria-hidden="true">${KINDS.map((kind) => `<span><i class="swatch k-${kind}"></i>${kind}</span>`).join('')}</div>
<div class="table-wrap">
<table class="usage">
<thead><tr><th scope="col">Date</th>${KINDS.map((kind) => `<th scope="col" class="num">${kind}</th>`).join('')}<th scope="col" class="num">Total</th></tr></thead>
<tbody>
${history
  .map(
    (day) =>
      `<tr><th scope="row">${day.date}</th>${KINDS.map((kind) => `<td class="num">${day[kind]}</td>`).join('')}<td class="num strong">${day.total}</td></tr>`,
  )
  .join('\n')}
</tbody>
<tfoot><tr><th scope="row">Total</th>${KINDS.map((kind) => `<td class="num">${history.reduce((sum, day) => sum + day[kind], 0)}</td>`).join('')}<td class="num strong">${total}</td></tr></tfoot>
</table>
</div>
</section>
${watches}
${confirmDialog()}`,
    true,
  );
}

/**
 * Stacked bars, one a day, coloured by kind, in an SVG that states its total in its accessible name.
 * Sizes are attributes and colours classes, so the strict CSP needs no inline style.
 */
function usageChart(history: UsageDay[], total: number): string {
  const width = 720;
  const height = 220;
  const top = 16;
  const bottom = 34;
  const left = 52;
  const plot = height - top - bottom;
  const max = Math.max(1, ...history.map((day) => day.total));
  const step = (width - left - 8) / Math.max(1, history.length);
  const bar = Math.max(2, step * 0.7);
  const y = (value: number): number => top + plot - (value / max) * plot;
  const bars = history
    .map((day, i) => {
      const x = left + i * step + (step - bar) / 2;
      let base = 0;
      const parts = KINDS.filter((kind) => day[kind] > 0).map((kind) => {
        const rect = `<rect class="k-${kind}" x="${x.toFixed(1)}" y="${y(base + day[kind]).toFixed(1)}" width="${bar.toFixed(1)}" height="${(y(base) - y(base + day[kind])).toFixed(1)}"></rect>`;
        base += day[kind];
        return rect;
      });
      return `<g><title>${day.date}: ${day.total} lookups</title>${parts.join('')}</g>`;
    })
    .join('');
  // The first and last dates align with the plot's edges, so that no narrow screen cuts them.
  const label = (i: number, anchor: 'start' | 'middle' | 'end'): string => {
    const day = history[i];
    if (day === undefined) return '';
    const x = anchor === 'start' ? left : anchor === 'end' ? width - 8 : left + i * step + step / 2;
    return `<text x="${x.toFixed(1)}" y="${height - 6}" text-anchor="${anchor}">${day.date.slice(5)}</text>`;
  };
  const first = history[0]?.date ?? '';
  const last = history.at(-1)?.date ?? '';
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${total} lookups in total from ${first} to ${last}">
<line class="axis" x1="${left}" y1="${top + plot}" x2="${width - 8}" y2="${top + plot}"></line>
<line class="grid" x1="${left}" y1="${top}" x2="${width - 8}" y2="${top}"></line>
<text x="${left - 6}" y="${top + 4}" text-anchor="end">${max}</text>
<text x="${left - 6}" y="${top + plot + 4}" text-anchor="end">0</text>
${bars}
${label(0, 'start')}${label(Math.floor((history.length - 1) / 2), 'middle')}${label(history.length - 1, 'end')}
</svg>`;
}

/** What a detail link to an unknown key shows. */
export function missingKeyPage(page: PageContext): string {
  return layout(
    page,
    'No such key',
    `<section class="card narrow"><h1>No such key</h1><p>There is no key with this id. <a href="${page.base}">Back to all keys</a>.</p></section>`,
    true,
  );
}

/** What the panel shows while the store that holds the keys does not answer. */
export function unavailablePage(page: PageContext): string {
  return layout(
    page,
    'Store unavailable',
    `<section class="card narrow"><h1>The key store is not answering</h1><p role="alert">Dossier cannot reach the store that holds the keys right now. Nothing was changed. <a href="${page.base}">Try again</a> in a few seconds.</p></section>`,
    true,
  );
}
