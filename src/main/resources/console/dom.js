// DOM building for the console. Text is only ever set as text (text nodes, textContent, value):
// documents may hold markup, and this file is the one place nodes are made.

/**
 * An element: `props` are attributes, except `testid` (data-testid), `class`, `on<event>`
 * listeners and DOM properties given a non-string value (value, checked, disabled...).
 * Children are nodes or values shown as text.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'testid') node.dataset.testid = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (typeof value !== 'string') node[key] = value;
    else node.setAttribute(key, value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Empties `node` and puts `children` in it. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A value as one line of JSON text (for table cells), cut to `max` characters. */
export function short(value, max = 80) {
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** A message line: kind is 'error', 'ok' or 'info'. */
export function message(kind, text, testid) {
  return el('p', { class: 'msg ' + kind, testid, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Offers `text` as a file download named `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
