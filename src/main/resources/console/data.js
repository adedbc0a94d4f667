// Databases, collections and their documents.
import { el, replace, short, message } from './dom.js';
import { documentEditor } from './editor.js';
import { indexesTab } from './indexes.js';
import { tailTab } from './tail.js';
import { transferTab } from './transfer.js';

const TABS = [['documents', 'Documents'], ['indexes', 'Indexes'], ['tail', 'Live tail'], ['transfer', 'Import / export']];

/** The query each collection's table last ran, kept while the page is open. */
const queries = new Map();

export function queryOf(db, coll) {
  const key = db + '/' + coll;
  if (!queries.has(key)) queries.set(key, { filter: '', sort: '', keys: '', page: 1, pagesize: 20 });
  return queries.get(key);
}

/** A request URL as a person reads it: parameters decoded (the client encodes spaces as '+'). */
export function readable(url) {
  return decodeURIComponent(url.replace(/\+/g, ' '));
}

export function hash(...parts) {
  return '#/' + ['data', ...parts].map(encodeURIComponent).join('/');
}

export function dataView(app, db, coll, tab) {
  const content = el('div', { class: 'content' });
  replace(app.main, el('section', { class: 'data' }, sidebar(app, db, coll), content));
  if (!db || !coll) {
    replace(content, message('info', db ? 'Choose or create a collection.' : 'Choose or create a database.'));
    return;
  }
  const body = el('div', { class: 'tab-body' });
  replace(content,
    el('h2', {}, db + ' / ' + coll),
    el('nav', { class: 'tabs' }, TABS.map(([id, label]) =>
      el('a', { href: hash(db, coll, id), class: id === tab ? 'active' : '', testid: 'tab-' + id }, label))),
    body);
  const show = { documents: documentsTab, indexes: indexesTab, tail: tailTab, transfer: transferTab }[tab] ?? documentsTab;
  show(app, db, coll, body);
}

function sidebar(app, db, coll) {
  const dbList = el('ul', { testid: 'db-list', class: 'list' });
  const collList = el('ul', { testid: 'coll-list', class: 'list' });
  app.weft.databases({ pagesize: 1000 }).then((names) => replace(dbList, names.map((name) =>
    el('li', {}, el('a', { href: hash(name), class: name === db ? 'active' : '' }, name)))))
    .catch((e) => app.fail(e, dbList));
  if (db) {
    app.weft.collections(db, { pagesize: 1000 }).then((names) => replace(collList, names.map((name) =>
      el('li', {}, el('a', { href: hash(db, name), class: name === coll ? 'active' : '' }, name)))))
      .catch((e) => app.fail(e, collList));
  }
  return el('aside', {},
    el('h3', {}, 'Databases'), dbList,
    creator(app, 'new-db', 'new database', async (name) => {
      await app.weft.createDatabase(name);
      location.hash = hash(name);
    }),
    db ? [el('h3', {}, 'Collections in ' + db), collList,
      creator(app, 'new-coll', 'new collection', async (name) => {
        await app.weft.createCollection(db, name);
        location.hash = hash(db, name);
      })] : null);
}

/** A name input and a button that calls `create(name)`, with the failure under it. */
function creator(app, testid, placeholder, create) {
  const input = el('input', { testid: testid + '-name', placeholder, 'aria-label': placeholder });
  const status = el('div');
  return el('form', {
    class: 'creator',
    onsubmit: async (event) => {
      event.preventDefault();
      if (!input.value) return;
      try {
        await create(input.value.trim());
        input.value = '';
      } catch (e) {
        app.fail(e, status);
      }
    },
  }, input, el('button', { testid: testid + '-create', type: 'submit' }, 'Create'), status);
}

/** JSON (or RESTHeart's relaxed JSON) text from an input, left for the server to judge. */
function param(text) {
  const t = text.trim();
  return t === '' ? undefined : t;
}

function documentsTab(app, db, coll, body) {
  const q = queryOf(db, coll);
  const filter = el('input', { testid: 'filter-input', value: q.filter, placeholder: '{"status": "paid"}', class: 'code', 'aria-label': 'filter' });
  const sort = el('input', { testid: 'sort-input', value: q.sort, placeholder: '{"_id": -1}', class: 'code', 'aria-label': 'sort' });
  const keys = el('input', { testid: 'keys-input', value: q.keys, placeholder: '{"name": 1}', class: 'code', 'aria-label': 'projection' });
  const pagesize = el('select', { testid: 'pagesize', 'aria-label': 'page size' },
    [10, 20, 50, 100].map((n) => el('option', { value: String(n), selected: n === q.pagesize }, n + ' per page')));
  const request = el('code', { testid: 'request-line' });
  const table = el('table', { testid: 'doc-table', class: 'docs' });
  const pager = el('div', { class: 'pager' });
  const status = el('div');
  const editorSlot = el('div');

  const run = async () => {
    Object.assign(q, { filter: filter.value, sort: sort.value, keys: keys.value, pagesize: Number(pagesize.value) });
    replace(status);
    try {
      const result = await app.weft.find(db, coll, {
        filter: param(q.filter), sort: param(q.sort), keys: param(q.keys), page: q.page, pagesize: q.pagesize, count: true,
      });
      replace(request, 'GET ' + readable(result.url));
      renderTable(table, result.documents, (doc) => openEditor(doc));
      renderPager(result);
    } catch (e) {
      replace(table);
      app.fail(e, status);
    }
  };
  const renderPager = ({ total, pages }) => replace(pager,
    el('button', { testid: 'page-prev', disabled: q.page <= 1, onclick: () => { q.page--; run(); } }, '‹ Previous'),
    el('span', { testid: 'page-info' }, `page ${q.page} of ${Math.max(pages, 1)} (${total} documents)`),
    el('button', { testid: 'page-next', disabled: q.page >= pages, onclick: () => { q.page++; run(); } }, 'Next ›'));
  const openEditor = (doc) => replace(editorSlot, documentEditor(app, db, coll, doc, {
    onSaved: run, onClose: () => replace(editorSlot),
  }));

  replace(body,
    el('form', {
      class: 'query',
      onsubmit: (event) => { event.preventDefault(); q.page = 1; run(); },
    },
    el('label', {}, 'filter', filter), el('label', {}, 'sort', sort), el('label', {}, 'projection', keys), pagesize,
    el('button', { testid: 'filter-run', type: 'submit' }, 'Run')),
    el('p', { class: 'request' }, 'Request: ', request),
    status,
    el('div', { class: 'table-wrap' }, table),
    pager,
    el('button', { testid: 'doc-new', onclick: () => openEditor(null) }, 'New document'),
    editorSlot);
  run();
}

/** A table of documents: `_id`, then the top-level fields the page holds (values as JSON text). */
function renderTable(table, documents, onOpen) {
  const fields = [];
  for (const doc of documents) {
    for (const field of Object.keys(doc)) {
      if (field !== '_id' && field !== '_etag' && !fields.includes(field) && fields.length < 8) fields.push(field);
    }
  }
  replace(table,
    el('thead', {}, el('tr', {}, ['_id', ...fields].map((f) => el('th', {}, f)))),
    el('tbody', {}, documents.length === 0
      ? el('tr', {}, el('td', { colSpan: fields.length + 1, class: 'empty' }, 'No documents match.'))
      : documents.map((doc) => el('tr', { testid: 'doc-row', tabIndex: 0, onclick: () => onOpen(doc),
        onkeydown: (e) => { if (e.key === 'Enter') onOpen(doc); } },
      ['_id', ...fields].map((f) => el('td', {}, short(doc[f])))))));
}
