// The Weft Console: a page served by Weft at /_console/ that works only through the public API,
// with the JavaScript client (weft.js, copied beside this file by the build).
import { Weft } from './weft.js';
import { el, replace, message } from './dom.js';
import { dataView } from './data.js';
import { adminView } from './admin.js';
import { metricsView } from './metrics.js';

const SESSION_KEY = 'weft.session';

function storedSession() {
  try {
    return JSON.parse(sessionStorage.getItem(SESSION_KEY));
  } catch {
    return null;
  }
}

/** What every view gets: the client, the main area, and the way to report a failure. */
const app = {
  weft: new Weft('', {
    session: storedSession(),
    // the token lives as long as the tab: sessionStorage, never localStorage
    onSession: (s) => (s ? sessionStorage.setItem(SESSION_KEY, JSON.stringify(s)) : sessionStorage.removeItem(SESSION_KEY)),
  }),
  main: document.getElementById('main'),
  cleanups: [],

  /** Runs `fn` when the view is left (streams closed, timers stopped). */
  onLeave(fn) {
    this.cleanups.push(fn);
  },

  /**
   * A failure as a message in `where` (a node replaced by it, or appended to when `append`);
   * a 401 means the session ended: back to the login.
   */
  fail(error, where) {
    if (error?.status === 401) {
      this.weft.logout();
      showLogin('Your session ended (401: ' + error.message + '); log in again.');
      return;
    }
    const text = explain(error);
    if (where) replace(where, message('error', text, 'error'));
    else console.error(error);
  },
};

/** A failed call in words a person can act on. */
export function explain(e) {
  switch (e?.status) {
    case 412:
      return 'Not saved: the document changed since you opened it (its ETag no longer matches: 412 Precondition Failed). '
        + 'Reload it to see the current version, then apply your edit again.';
    case 400: return 'Refused (400 Bad Request): ' + e.message;
    case 403: return 'Not allowed (403 Forbidden): ' + e.message;
    case 404: return 'Not found (404): ' + e.message;
    case 409: return 'Conflict (409): ' + e.message;
    case 413: return 'Too large (413): ' + e.message;
    case 429: return 'Too many attempts (429): ' + e.message;
    case undefined: return 'Request failed: ' + (e?.message ?? String(e));
    default: return `Failed (${e.status}): ${e.message}`;
  }
}

function leave() {
  for (const fn of app.cleanups.splice(0)) {
    try { fn(); } catch (e) { console.error(e); }
  }
}

function showLogin(notice) {
  leave();
  document.getElementById('nav').hidden = true;
  document.getElementById('logout').hidden = true;
  replace(document.getElementById('who'));
  const user = el('input', { testid: 'login-user', name: 'user', autocomplete: 'username', required: true });
  const password = el('input', { testid: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const status = el('div', { class: 'status' }, notice ? message('info', notice) : null);
  const submit = el('button', { testid: 'login-submit', type: 'submit' }, 'Log in');
  const form = el('form', {
    class: 'login',
    onsubmit: async (event) => {
      event.preventDefault();
      submit.disabled = true;
      try {
        await app.weft.login(user.value, password.value);
        password.value = '';
        if (!location.hash || location.hash === '#/login') location.hash = '#/data';
        route();
      } catch (e) {
        replace(status, message('error', e.status === 401 ? 'Wrong user name or password.' : explain(e), 'login-error'));
      } finally {
        submit.disabled = false;
      }
    },
  },
  el('h1', {}, 'Log in to Weft'),
  el('label', {}, 'User', user),
  el('label', {}, 'Password', password),
  submit, status);
  replace(app.main, form);
  user.focus();
}

function route() {
  leave();
  const session = app.weft.session;
  if (!session) {
    showLogin();
    return;
  }
  document.getElementById('nav').hidden = false;
  document.getElementById('logout').hidden = false;
  replace(document.getElementById('who'), session.user);
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.getAttribute('href') === '#/' + parts[0]);
  switch (parts[0]) {
    case 'admin': adminView(app); break;
    case 'metrics': metricsView(app); break;
    default: dataView(app, parts[1] || null, parts[2] || null, parts[3] || 'documents');
  }
}

document.getElementById('logout').addEventListener('click', () => {
  app.weft.logout();
  location.hash = '#/login';
  showLogin('Logged out.');
});
window.addEventListener('hashchange', route);
route();
