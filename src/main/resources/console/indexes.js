// A collection's indexes: list, create, drop.
import { el, replace, short, message } from './dom.js';
import { validate } from './editor.js';

export function indexesTab(app, db, coll, body) {
  const table = el('table', { testid: 'index-table', class: 'docs' });
  const status = el('div');
  const name = el('input', { testid: 'index-name', placeholder: 'byName', 'aria-label': 'index name' });
  const keys = el('input', { testid: 'index-keys', class: 'code', placeholder: '{"name": 1}', 'aria-label': 'index keys' });
  const unique = el('input', { type: 'checkbox', testid: 'index-unique' });

  const load = async () => {
    try {
      const indexes = await app.weft.indexes(db, coll);
      replace(table,
        el('thead', {}, el('tr', {}, el('th', {}, 'name'), el('th', {}, 'keys'), el('th', {}, 'options'), el('th'))),
        el('tbody', {}, indexes.map((index) => {
          const { _id, key, ...options } = index;
          return el('tr', { testid: 'index-row' },
            el('td', {}, _id), el('td', {}, short(key)), el('td', {}, short(options)),
            el('td', {}, _id === '_id_' ? '' : el('button', {
              class: 'danger', testid: 'index-drop',
              onclick: async () => {
                try { await app.weft.dropIndex(db, coll, _id); load(); } catch (e) { app.fail(e, status); }
              },
            }, 'Drop')));
        })));
    } catch (e) {
      app.fail(e, status);
    }
  };
  replace(body,
    el('div', { class: 'table-wrap' }, table),
    el('form', {
      class: 'query',
      onsubmit: async (event) => {
        event.preventDefault();
        const parsed = validate(keys.value);
        if (parsed.error) {
          replace(status, message('error', 'Keys: ' + parsed.error));
          return;
        }
        try {
          await app.weft.createIndex(db, coll, name.value.trim(), parsed.value, unique.checked ? { unique: true } : undefined);
          replace(status, message('ok', 'Index created.'));
          load();
        } catch (e) {
          app.fail(e, status);
        }
      },
    },
    el('label', {}, 'name', name), el('label', {}, 'keys', keys), el('label', { class: 'check' }, unique, 'unique'),
    el('button', { testid: 'index-create', type: 'submit' }, 'Create index')),
    status);
  load();
}
