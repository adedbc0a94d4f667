// A JSON editor for one document: validates as you type, saves under the document's ETag.
import { el, replace, message } from './dom.js';

/** Where a JSON.parse error points, as "line L, column C" when the engine tells the offset. */
function where(text, error) {
  const m = /position (\d+)/.exec(error.message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

/** The text as a document, or the reason it is not one. */
export function validate(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: 'Not valid JSON: ' + e.message + where(text, e) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: 'A document is a JSON object ({...}).' };
  }
  return { value };
}

/**
 * The editor for `doc` (null: a new one, from `template`). A save replaces the document only if
 * it is still the version opened (If-Match its ETag); a 412 says so plainly.
 */
export function documentEditor(app, db, coll, doc, { onSaved, onClose, template = {} }) {
  let opened = doc;
  const text = (d) => {
    const { _etag, ...rest } = d;
    return JSON.stringify(rest, null, 2);
  };
  const area = el('textarea', { testid: 'doc-editor', class: 'code', rows: '14', spellcheck: 'false', 'aria-label': 'document JSON' });
  area.value = doc ? text(doc) : JSON.stringify(template, null, 2);
  const validity = el('p', { testid: 'doc-validation', class: 'msg' });
  const status = el('div', { testid: 'doc-status' });
  const save = el('button', { testid: 'doc-save' }, 'Save');
  const remove = el('button', { testid: 'doc-delete', class: 'danger', hidden: !doc }, 'Delete');
  const title = el('h3', {}, doc ? 'Document ' + JSON.stringify(doc._id) : 'New document');
  let armed = false;

  const check = () => {
    const { error } = validate(area.value);
    validity.className = 'msg ' + (error ? 'error' : 'ok');
    replace(validity, error ?? 'Valid JSON document.');
    save.disabled = Boolean(error);
    return !error;
  };
  const reload = async () => {
    if (!opened) return;
    const current = await app.weft.get(db, coll, opened._id);
    if (!current) {
      replace(status, message('error', 'This document no longer exists.'));
      return;
    }
    opened = current;
    area.value = text(current);
    check();
    replace(status, message('info', 'Reloaded the current version.'));
  };

  save.addEventListener('click', async () => {
    if (!check()) return;
    const { value } = validate(area.value);
    delete value._etag;
    try {
      if (opened) {
        if (JSON.stringify(value._id) !== JSON.stringify(opened._id) && value._id !== undefined) {
          replace(status, message('error', 'The _id cannot change: save a new document instead.'));
          return;
        }
        await app.weft.replace(db, coll, opened._id, value, { etag: opened._etag?.$oid });
        opened = await app.weft.get(db, coll, opened._id);
      } else {
        const { id } = await app.weft.insert(db, coll, value);
        opened = await app.weft.get(db, coll, id);
        title.textContent = 'Document ' + JSON.stringify(opened._id);
        remove.hidden = false;
      }
      area.value = text(opened);
      replace(status, message('ok', 'Saved.', 'doc-saved'));
      onSaved?.();
    } catch (e) {
      app.fail(e, status);
      if (e.status === 412) status.append(el('button', { testid: 'doc-reload', onclick: reload }, 'Reload the current version'));
    }
  });
  remove.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      remove.textContent = 'Click again to delete';
      return;
    }
    try {
      await app.weft.remove(db, coll, opened._id, { etag: opened._etag?.$oid });
      onSaved?.();
      onClose?.();
    } catch (e) {
      armed = false;
      remove.textContent = 'Delete';
      app.fail(e, status);
    }
  });
  area.addEventListener('input', check);
  check();
  return el('div', { class: 'editor', testid: 'doc-editor-panel' },
    title, area, validity,
    el('div', { class: 'buttons' }, save, remove, el('button', { onclick: () => onClose?.() }, 'Close')),
    status);
}
