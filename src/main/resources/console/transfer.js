// ndjson import (with progress and the per-line errors) and export of the table's query.
import { el, replace, message, download } from './dom.js';
import { queryOf, readable } from './data.js';

export function transferTab(app, db, coll, body) {
  const file = el('input', { type: 'file', testid: 'import-file', accept: '.ndjson,.jsonl,.json,application/x-ndjson,text/plain', 'aria-label': 'ndjson file' });
  const progress = el('progress', { testid: 'import-progress', max: 1, value: 0 });
  const result = el('p', { testid: 'import-result' });
  const errors = el('ol', { testid: 'import-errors', class: 'errors' });
  const status = el('div');
  const exportStatus = el('div');
  const exportRequest = el('code', { testid: 'export-request' });

  file.addEventListener('change', async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    progress.value = 0;
    replace(result, 'Importing ' + chosen.name + '…');
    replace(errors);
    replace(status);
    try {
      const answer = await app.weft.importNdjson(db, coll, chosen, {
        chunkBytes: 256 * 1024,
        onProgress: (p) => { progress.value = p.totalBytes ? p.sentBytes / p.totalBytes : 1; },
      });
      progress.value = 1;
      replace(result, `${answer.inserted} inserted, ${answer.failed} failed.`);
      replace(errors, answer.errors.map((e) => el('li', { testid: 'import-error' }, `line ${e.line}: ${e.message}`)));
    } catch (e) {
      app.fail(e, status);
    } finally {
      file.value = '';
    }
  });

  const q = queryOf(db, coll);
  const exportQuery = () => ({ filter: q.filter.trim() || undefined, sort: q.sort.trim() || undefined, keys: q.keys.trim() || undefined });
  replace(exportRequest, 'GET ' + readable(app.weft.urlOf(`/${db}/${coll}`, exportQuery())) + '  Accept: application/x-ndjson');
  replace(body,
    el('h3', {}, 'Import ndjson'),
    el('p', { class: 'hint' }, 'One JSON document per line. Bad lines do not stop the good ones; each is listed below with its line number.'),
    file, progress, result, errors, status,
    el('h3', {}, 'Export as ndjson'),
    el('p', { class: 'hint' }, 'Every document the Documents tab\'s filter, sort and projection select, without the page limit.'),
    el('p', { class: 'request' }, exportRequest),
    el('button', {
      testid: 'export-run',
      onclick: async () => {
        try {
          download(`${db}-${coll}.ndjson`, await app.weft.exportNdjson(db, coll, exportQuery()), 'application/x-ndjson');
          replace(exportStatus, message('ok', 'Exported.'));
        } catch (e) {
          app.fail(e, exportStatus);
        }
      },
    }, 'Export'),
    exportStatus);
}
