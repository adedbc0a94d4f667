// A live tail of a collection's change stream: pause keeps the last token, resume goes on from it.
import { el, replace, short } from './dom.js';

const KEPT = 200;

export function tailTab(app, db, coll, body) {
  const list = el('ol', { testid: 'live-tail', class: 'tail', reversed: true });
  const state = el('span', { testid: 'tail-state', class: 'badge' }, 'connecting');
  const token = el('code', { testid: 'tail-token' }, '-');
  const count = el('span', { testid: 'tail-count' }, '0');
  const status = el('div');
  const toggle = el('button', { testid: 'tail-toggle' }, 'Pause');
  let received = 0;

  const stream = app.weft.watch(db, coll, {
    onEvent: (event) => {
      received++;
      count.textContent = String(received);
      token.textContent = event._id?._data ?? '-';
      list.prepend(row(event));
      while (list.children.length > KEPT) list.lastChild.remove();
    },
    onState: (s) => {
      state.textContent = s;
      state.className = 'badge ' + s;
      toggle.textContent = s === 'paused' || s === 'closed' ? 'Resume' : 'Pause';
    },
    onError: (e) => app.fail(e, status),
  });
  app.onLeave(() => stream.close());
  toggle.addEventListener('click', () => {
    if (stream.state === 'paused' || stream.state === 'closed') {
      replace(status);
      stream.resume();
    } else {
      stream.pause();
    }
  });
  replace(body,
    el('div', { class: 'tail-bar' }, toggle, ' state ', state, ' events ', count, ' last token ', token),
    el('p', { class: 'hint' }, 'Every change to this collection, newest first. Pausing closes the stream; resuming reopens it after the last token, so nothing written meanwhile is missed.'),
    status, list);
}

function row(event) {
  const when = event.wallTime?.$date ? new Date(event.wallTime.$date).toLocaleTimeString() : '';
  const detail = event.fullDocument ?? event.updateDescription ?? null;
  return el('li', { class: 'event ' + event.operationType, testid: 'tail-event' },
    el('span', { class: 'time' }, when), ' ',
    el('span', { class: 'op' }, event.operationType), ' ',
    el('span', { class: 'id' }, short(event.documentKey?._id ?? '')), ' ',
    el('code', { class: 'json' }, detail ? short(detail, 400) : ''));
}
