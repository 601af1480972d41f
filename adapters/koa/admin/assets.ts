/**
 * The panel's only script, served as `/admin/assets/admin.js` (the CSP allows no inline script). It
 * turns the page's forms and buttons into calls to the admin API with the session cookie (the browser
 * adds the `Origin` the API checks), shows a new plaintext key once, asks before a revoke or a roll,
 * and refreshes the keys table from the server's own HTML.
 */
export const ADMIN_JS = String.raw`'use strict';
(function () {
  var base = document.body.getAttribute('data-base') || '/admin';
  var keysApi = base + '/api/keys';

  function call(method, path, body) {
    var init = { method: method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        if (response.status === 401) {
          window.location.assign(base);
        }
        if (!response.ok) {
          var error = new Error(json.message || 'The server answered ' + response.status + '.');
          error.errors = json.errors || {};
          throw error;
        }
        return json.data;
      });
    });
  }

  function section(element) {
    return element.closest('section') || document;
  }

  function clearErrors(form) {
    form.querySelectorAll('.field-error').forEach(function (p) { p.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach(function (input) { input.removeAttribute('aria-invalid'); });
    var alert = section(form).querySelector('[data-form-error]');
    if (alert) { alert.hidden = true; alert.textContent = ''; }
  }

  function showError(form, error) {
    var shown = false;
    Object.keys(error.errors || {}).forEach(function (field) {
      var slot = form.querySelector('.field-error[data-field="' + field + '"]');
      if (slot) {
        slot.textContent = error.errors[field].join(' ');
        var input = form.querySelector('[name="' + field + '"]');
        if (input) input.setAttribute('aria-invalid', 'true');
        shown = true;
      }
    });
    if (!shown) {
      var alert = section(form).querySelector('[data-form-error]');
      if (alert) { alert.textContent = error.message; alert.hidden = false; }
    }
  }

  // The served page holds no key element at all: the script makes it when a key has just been created
  // or rolled, so that after a reload there is nothing to find.
  function showNewKey(secret) {
    var panel = document.querySelector('[data-new-key-panel]');
    var row = panel.querySelector('.copy-row');
    row.textContent = '';
    var code = document.createElement('code');
    code.setAttribute('data-testid', 'new-key');
    code.textContent = secret;
    var copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'button';
    copy.setAttribute('data-action', 'copy');
    copy.textContent = 'Copy';
    row.append(code, copy);
    panel.hidden = false;
    panel.scrollIntoView({ block: 'nearest' });
  }

  function refreshKeys() {
    return fetch(window.location.href, { credentials: 'same-origin' })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html');
        ['#keys tbody', '.heading p'].forEach(function (selector) {
          var now = document.querySelector(selector);
          var next = fresh.querySelector(selector);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
      });
  }

  var dialog = document.getElementById('confirm');
  function confirmAction(text) {
    if (!dialog || typeof dialog.showModal !== 'function') return Promise.resolve(window.confirm(text));
    dialog.querySelector('[data-confirm-text]').textContent = text;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise(function (resolve) {
      dialog.addEventListener('close', function () { resolve(dialog.returnValue === 'confirm'); }, { once: true });
    });
  }

  function numberOrNull(value) {
    return value.trim() === '' ? null : Number(value);
  }

  var handlers = {
    create: function (form) {
      var data = new FormData(form);
      var body = { name: String(data.get('name') || ''), scopes: data.getAll('scopes') };
      var owner = String(data.get('owner') || '').trim();
      if (owner !== '') body.owner = owner;
      var limit = numberOrNull(String(data.get('daily_limit') || ''));
      if (limit !== null) body.daily_limit = limit;
      var expires = String(data.get('expires_at') || '');
      if (expires !== '') body.expires_at = expires;
      return call('POST', keysApi, body).then(function (key) {
        form.reset();
        showNewKey(key.key);
        return refreshKeys();
      });
    },
    limit: function (form) {
      var limit = numberOrNull(form.elements.daily_limit.value);
      return call('PATCH', keysApi + '/' + encodeURIComponent(form.dataset.id), { daily_limit: limit }).then(function () {
        window.location.reload();
      });
    },
    roll: function (form) {
      var grace = numberOrNull(form.elements.grace_seconds.value);
      var text = 'Roll the key "' + form.dataset.name + '"? Programs must switch to the new secret; the old one stops working ' +
        (grace ? 'in ' + grace + ' seconds.' : 'at once.');
      return confirmAction(text).then(function (yes) {
        if (!yes) return undefined;
        return call('POST', keysApi + '/' + encodeURIComponent(form.dataset.id) + '/roll', { grace_seconds: grace === null ? 0 : grace })
          .then(function (key) { showNewKey(key.key); });
      });
    }
  };

  document.addEventListener('submit', function (event) {
    var form = event.target;
    var action = form.getAttribute('data-action');
    if (!action || !handlers[action]) return;
    event.preventDefault();
    clearErrors(form);
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    handlers[action](form).catch(function (error) { showError(form, error); }).then(function () {
      if (button) button.disabled = false;
    });
  });

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-action]');
    if (!button) return;
    var action = button.getAttribute('data-action');
    if (action === 'copy') {
      var code = section(button).querySelector('[data-testid="new-key"]');
      var done = function () { button.textContent = 'Copied'; };
      var fallback = function () {
        var range = document.createRange();
        range.selectNodeContents(code);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand('copy')) done(); else button.textContent = 'Press Ctrl+C';
      };
      if (navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(done, fallback); else fallback();
    } else if (action === 'revoke') {
      var name = button.getAttribute('data-name');
      confirmAction('Revoke the key "' + name + '"? Every program using it is refused at once. This cannot be undone.').then(function (yes) {
        if (!yes) return undefined;
        button.disabled = true;
        return call('POST', keysApi + '/' + encodeURIComponent(button.getAttribute('data-id')) + '/revoke').then(function () {
          if (button.getAttribute('data-after') === 'reload') window.location.reload(); else return refreshKeys();
        });
      }).catch(function (error) {
        button.disabled = false;
        var alert = section(button).querySelector('[data-form-error]') || document.querySelector('[data-form-error]');
        if (alert) { alert.textContent = error.message; alert.hidden = false; }
      });
    }
  });
})();
`;

/** The panel's only stylesheet, served as `/admin/assets/admin.css`. */
export const ADMIN_CSS = String.raw`:root {
  --bg: #f5f6f8; --card: #fff; --text: #1b1f24; --muted: #5f6b7a; --line: #dde1e6; --accent: #2457d6;
  --accent-text: #fff; --danger: #c62f2f; --ok-bg: #e3f5e8; --ok: #1d6b36; --bad-bg: #fbe7e7; --bad: #a32020;
  --warn-bg: #fdf1dc; --warn: #8a5300; --radius: 8px;
  --dns: #2457d6; --whois: #8e44ad; --ip: #16a085; --ssl: #e67e22;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.9em; }
pre { background: #f0f2f5; padding: 12px; border-radius: 6px; overflow-x: auto; }
h1 { font-size: 1.5rem; margin: 0; }
h2 { font-size: 1.05rem; margin: 0 0 12px; }
.muted { color: var(--muted); font-weight: normal; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.bar { display: flex; align-items: center; justify-content: space-between; gap: 12px; padding: 10px 24px; background: #111827; color: #fff; }
.brand { display: flex; align-items: center; gap: 10px; color: #fff; text-decoration: none; font-weight: 600; font-size: 1.05rem; }
.brand .muted { color: #9ca3af; }
.logo { display: inline-grid; place-items: center; width: 28px; height: 28px; border-radius: 6px; background: var(--accent); font-weight: 700; }
.sign-out { margin: 0; }
.bar .button.quiet { color: #e5e7eb; border-color: #374151; background: transparent; }
.bar .button.quiet:hover { background: #1f2937; }

.wrap { max-width: 1180px; margin: 0 auto; padding: 24px; }
.heading { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; margin: 4px 0 16px; }
.heading p { margin: 0; }
.back { margin: 0 0 8px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 20px; margin-bottom: 20px; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); }
.card.flush { padding: 0; overflow: hidden; }
.card .pad { padding: 16px 20px 0; }
.card.narrow { max-width: 520px; margin: 48px auto; }
.card.narrow h1 { margin-bottom: 12px; }

label, legend { font-weight: 600; font-size: 0.875rem; }
input[type="text"], input:not([type]), input[type="password"], input[type="number"], input[type="date"] {
  display: block; width: 100%; margin-top: 4px; padding: 8px 10px; font: inherit; color: inherit;
  border: 1px solid #c5cbd3; border-radius: 6px; background: #fff; min-height: 38px;
}
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid rgba(36, 87, 214, 0.35); outline-offset: 1px; }
input[aria-invalid="true"] { border-color: var(--danger); }
.stack { display: grid; gap: 8px; }
.stack .button { justify-self: start; margin-top: 8px; }
.hint { margin: 4px 0 0; color: var(--muted); font-size: 0.8rem; }
.field-error { margin: 4px 0 0; color: var(--danger); font-size: 0.8rem; }
.field-error:empty { display: none; }
.alert { padding: 10px 12px; border-radius: 6px; margin: 12px 0 0; }
.alert.error { background: var(--bad-bg); color: var(--bad); }
.stack .alert, .card > .alert:first-child { margin-top: 0; }
.card.narrow > .alert { margin: 0 0 12px; }

.button { display: inline-flex; align-items: center; justify-content: center; gap: 6px; min-height: 38px; padding: 8px 14px; font: inherit; font-weight: 600; font-size: 0.875rem; border-radius: 6px; border: 1px solid #c5cbd3; background: #fff; color: var(--text); cursor: pointer; white-space: nowrap; }
.button:hover { background: #f3f4f6; }
.button:disabled { opacity: 0.6; cursor: progress; }
.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
.button.primary:hover { background: #1d47b3; }
.button.danger { color: var(--danger); border-color: #e8b4b4; }
.button.danger:hover { background: var(--bad-bg); }
.button.small { min-height: 30px; padding: 4px 10px; }

.create-form { display: grid; grid-template-columns: minmax(180px, 2fr) minmax(150px, 1.5fr) 130px 160px auto auto; gap: 12px 16px; align-items: start; }
.field { min-width: 0; }
fieldset.field { border: 0; margin: 0; padding: 0; }
fieldset.scopes legend { padding: 0; margin-bottom: 4px; }
.check { display: flex; align-items: center; gap: 6px; font-weight: normal; min-height: 20px; }
.check input { width: 16px; height: 16px; margin: 0; }
.field.submit { align-self: start; padding-top: 24px; }

.new-key { border-color: #9fc5a8; background: #f3fbf5; }
.copy-row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.copy-row code { flex: 1 1 320px; padding: 9px 12px; background: #fff; border: 1px solid #c9dccd; border-radius: 6px; word-break: break-all; user-select: all; }

.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 10px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
/* No text-transform: the headers' text is what scripts and screen readers read, as written. */
thead th, thead td { font-size: 0.8rem; color: var(--muted); background: #f9fafb; font-weight: 600; white-space: nowrap; }
.keys th:first-child, .keys td:first-child { padding-left: 20px; }
.keys td.actions { text-align: right; padding-right: 20px; width: 1%; white-space: nowrap; }
tbody tr:last-child td, tbody tr:last-child th { border-bottom: 0; }
tbody tr:hover { background: #fafbfc; }
.num { text-align: right; }
.strong { font-weight: 600; }
.key-name { font-weight: 600; text-decoration: none; }
.key-name:hover { text-decoration: underline; }
.sub { display: block; color: var(--muted); font-size: 0.8rem; }
.empty td { color: var(--muted); text-align: center; padding: 28px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 0.8rem; font-weight: 600; }
.badge.active { background: var(--ok-bg); color: var(--ok); }
.badge.revoked { background: var(--bad-bg); color: var(--bad); }
.badge.expired { background: var(--warn-bg); color: var(--warn); }

.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 12px 24px; margin: 0; }
.facts dt { color: var(--muted); font-size: 0.8rem; }
.facts dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.manage { display: flex; flex-wrap: wrap; gap: 16px 32px; align-items: flex-start; }
.inline-form { display: flex; gap: 8px; align-items: flex-start; margin: 0; }
.inline-form .field { width: 170px; }
.inline-form .button { margin-top: 24px; }
.inline-form.end { margin-left: auto; }
.inline-form.end .button { margin-top: 24px; }

.chart { width: 100%; height: auto; display: block; margin: 4px 0 8px; }
.chart text { font-size: 11px; fill: var(--muted); }
.chart .axis { stroke: #9aa3af; }
.chart .grid { stroke: var(--line); stroke-dasharray: 3 3; }
.k-dns { fill: var(--dns); background: var(--dns); }
.k-whois { fill: var(--whois); background: var(--whois); }
.k-ip { fill: var(--ip); background: var(--ip); }
.k-ssl { fill: var(--ssl); background: var(--ssl); }
.legend { display: flex; gap: 16px; flex-wrap: wrap; font-size: 0.85rem; color: var(--muted); margin-bottom: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; }
.usage tfoot th, .usage tfoot td { border-top: 2px solid var(--line); font-weight: 600; }
.usage tbody th { font-weight: normal; white-space: nowrap; }
.keys td[data-label="Created"] { white-space: nowrap; }

dialog { border: 1px solid var(--line); border-radius: var(--radius); padding: 20px; max-width: min(440px, calc(100vw - 32px)); box-shadow: 0 20px 50px rgba(0, 0, 0, 0.25); }
dialog::backdrop { background: rgba(17, 24, 39, 0.45); }
dialog form { margin: 0; }
.dialog-buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 16px; }

@media (max-width: 1000px) {
  .create-form { grid-template-columns: 1fr 1fr; }
  .field.submit { padding-top: 0; }
}
@media (max-width: 700px) {
  .wrap { padding: 16px 12px; }
  .bar { padding: 10px 12px; }
  .card { padding: 16px 12px; }
  .create-form { grid-template-columns: 1fr; }
  .field.submit .button { width: 100%; }
  .keys thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .keys, .keys tbody, .keys tr, .keys td { display: block; width: 100%; }
  .keys tr { padding: 12px 16px; border-bottom: 1px solid var(--line); }
  .keys td { border: 0; padding: 3px 0; display: flex; justify-content: space-between; gap: 12px; text-align: right; }
  .keys td::before { content: attr(data-label); color: var(--muted); font-size: 0.8rem; text-align: left; flex: none; }
  .keys td:first-child { display: block; text-align: left; padding: 0 0 6px; }
  .keys td:first-child::before { content: none; }
  .keys td.actions { width: 100%; padding: 8px 0 0; justify-content: flex-end; }
  .keys td.actions:empty { display: none; }
  .keys tr.empty td { display: block; text-align: center; }
  .keys tr.empty td::before { content: none; }
  .manage { flex-direction: column; gap: 12px; }
  .inline-form.end { margin-left: 0; }
  .card.flush { padding: 0; }
  .usage th, .usage td { padding: 6px 4px; font-size: 0.8rem; }
  .chart text { font-size: 20px; }
  .facts { grid-template-columns: 1fr 1fr; }
  .facts div:has(.mono) { grid-column: 1 / -1; }
  .inline-form { width: 100%; }
  .inline-form .field { flex: 1; width: auto; }
}
`;

/** The panel's icon, so that browsers find one without asking elsewhere. */
export const ADMIN_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2457d6"/><text x="16" y="22.5" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">D</text></svg>`;
