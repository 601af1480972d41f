// @ts-check
'use strict';
(function () {
  var base = document.body.getAttribute('data-base') || '/admin';
  var keysApi = base + '/api/keys';

  function call(method, path, body) {
    /** @type {RequestInit & { headers: Record<string, string> }} */
    var init = { method: method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (json) {
          if (response.status === 401) window.location.assign(base);
          if (!response.ok) {
            /** @type {Error & { errors?: Record<string, string[]> }} */
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
    form.querySelectorAll('.field-error').forEach(function (p) {
      p.textContent = '';
    });
    form.querySelectorAll('[aria-invalid]').forEach(function (input) {
      input.removeAttribute('aria-invalid');
    });
    var alert = section(form).querySelector('[data-form-error]');
    if (alert) {
      alert.hidden = true;
      alert.textContent = '';
    }
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
    if (!shown) showAlert(form, error.message);
  }

  // In the alert of the element's section; the page's first for a section without one (every form's has one).
  function showAlert(element, message) {
    var alert = section(element).querySelector('[data-form-error]') || document.querySelector('[data-form-error]');
    if (!alert) return;
    alert.textContent = message;
    alert.hidden = false;
  }

  // The served page holds no key element at all: the script makes it when a key has just been created
  // or rolled, so that after a reload there is nothing to find.
  function showNewKey(secret) {
    /** @type {HTMLElement} */
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

  // Two refreshes on their way (a create, then a revoke) may come back in either order: only the last
  // one asked is shown, or an older table could replace a newer one.
  var refreshes = 0;
  function refreshKeys() {
    var asked = ++refreshes;
    return fetch(window.location.href, { credentials: 'same-origin' })
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        if (asked !== refreshes) return;
        var fresh = new DOMParser().parseFromString(html, 'text/html');
        ['#keys tbody', '.heading p'].forEach(function (selector) {
          var now = document.querySelector(selector);
          var next = fresh.querySelector(selector);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
      });
  }

  var dialog = /** @type {HTMLDialogElement | null} */ (document.getElementById('confirm'));
  function confirmAction(text) {
    if (!dialog || typeof dialog.showModal !== 'function') return Promise.resolve(window.confirm(text));
    dialog.querySelector('[data-confirm-text]').textContent = text;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise(function (resolve) {
      dialog.addEventListener(
        'close',
        function () {
          resolve(dialog.returnValue === 'confirm');
        },
        { once: true },
      );
    });
  }

  // What a revoke does to the key's watches, in words.
  function watchesGoing(count) {
    if (count === 0) return 'it has no watches.';
    return count === 1 ? 'its watch is removed with it.' : 'its ' + count + ' watches are removed with it.';
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
      var text =
        'Roll the key "' +
        form.dataset.name +
        '"? Programs must switch to the new secret; the old one stops working ' +
        (grace ? 'in ' + grace + ' seconds.' : 'at once.');
      return confirmAction(text).then(function (yes) {
        if (!yes) return undefined;
        return call('POST', keysApi + '/' + encodeURIComponent(form.dataset.id) + '/roll', {
          grace_seconds: grace === null ? 0 : grace,
        }).then(function (key) {
          showNewKey(key.key);
        });
      });
    },
  };

  document.addEventListener('submit', function (event) {
    var form = /** @type {HTMLFormElement} */ (event.target);
    var action = form.getAttribute('data-action');
    if (!action || !handlers[action]) return;
    event.preventDefault();
    clearErrors(form);
    /** @type {HTMLButtonElement | null} */
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    handlers[action](form)
      .catch(function (error) {
        showError(form, error);
      })
      .then(function () {
        if (button) button.disabled = false;
      });
  });

  document.addEventListener('click', function (event) {
    /** @type {HTMLButtonElement | null} */
    var button = /** @type {Element} */ (event.target).closest('button[data-action]');
    if (!button) return;
    var action = button.getAttribute('data-action');
    if (action === 'copy') {
      var code = section(button).querySelector('[data-testid="new-key"]');
      var done = function () {
        button.textContent = 'Copied';
      };
      var fallback = function () {
        var range = document.createRange();
        range.selectNodeContents(code);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand('copy')) done();
        else button.textContent = 'Press Ctrl+C';
      };
      if (navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(done, fallback);
      else fallback();
    } else if (action === 'revoke') {
      var name = button.getAttribute('data-name');
      var keyPath = keysApi + '/' + encodeURIComponent(button.getAttribute('data-id'));
      // The watches go with the key: the question says how many.
      call('GET', keyPath + '/watches')
        .then(function (watches) {
          return confirmAction(
            'Revoke the key "' +
              name +
              '"? Every program using it is refused at once, and ' +
              watchesGoing(watches.length) +
              ' This cannot be undone.',
          );
        })
        .then(function (yes) {
          if (!yes) return undefined;
          button.disabled = true;
          return call('POST', keyPath + '/revoke').then(function () {
            if (button.getAttribute('data-after') === 'reload') window.location.reload();
            else return refreshKeys();
          });
        })
        .catch(function (error) {
          button.disabled = false;
          showAlert(button, error.message);
        });
    } else if (action === 'remove-watch') {
      confirmAction(
        'Remove the watch "' +
          button.getAttribute('data-name') +
          '"? It is not checked again and sends no more webhooks. This cannot be undone.',
      )
        .then(function (yes) {
          if (!yes) return undefined;
          button.disabled = true;
          return call('DELETE', base + '/api/watches/' + encodeURIComponent(button.getAttribute('data-id'))).then(function () {
            var count = section(button).querySelector('[data-watch-count]');
            if (count) count.textContent = String(Number(count.textContent) - 1);
            button.closest('tr').remove();
          });
        })
        .catch(function (error) {
          button.disabled = false;
          showAlert(button, error.message);
        });
    }
  });
})();
