// Charts from /metrics, polled: requests per second and p99 latency per route, open connections
// and stream clients. Plain <canvas>.
import { el, replace } from './dom.js';

const POLL_MS = 2000;
const POINTS = 60;
const COLORS = ['#2457a6', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#b7950b'];

/** Per route: total requests, and the cumulative latency buckets (le -> count). */
function byRoute(samples) {
  const routes = new Map();
  const of = (route) => {
    if (!routes.has(route)) routes.set(route, { requests: 0, buckets: new Map() });
    return routes.get(route);
  };
  for (const s of samples) {
    if (s.name === 'weft_http_requests_total') of(s.labels.route).requests += s.value;
    if (s.name === 'weft_http_request_duration_seconds_bucket') {
      const r = of(s.labels.route);
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      r.buckets.set(le, (r.buckets.get(le) ?? 0) + s.value);
    }
  }
  return routes;
}

function gauge(samples, name) {
  return samples.find((s) => s.name === name)?.value ?? 0;
}

/** The 99th percentile, as the upper bound of the bucket holding it, from two cumulative snapshots. */
export function p99(before, after) {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before?.get(Infinity) ?? 0);
  if (total <= 0) return null;
  for (const le of bounds) {
    if ((after.get(le) ?? 0) - (before?.get(le) ?? 0) >= 0.99 * total) return le;
  }
  return Infinity;
}

export function metricsView(app) {
  const rate = el('canvas', { testid: 'metrics-chart', width: 900, height: 220, 'aria-label': 'requests per second per route' });
  const latency = el('canvas', { testid: 'metrics-p99', width: 900, height: 220, 'aria-label': 'p99 latency per route' });
  const gauges = el('canvas', { testid: 'metrics-gauges', width: 900, height: 160, 'aria-label': 'open connections and stream clients' });
  const table = el('table', { testid: 'metrics-table', class: 'docs' });
  const status = el('div');
  replace(app.main, el('section', { class: 'metrics' },
    el('h2', {}, 'Metrics'),
    el('p', { class: 'hint' }, `From /metrics every ${POLL_MS / 1000} s. p99 is the upper bound of the latency bucket holding the 99th percentile of the requests in each interval.`),
    status,
    el('h3', {}, 'Requests per second, per route'), rate,
    el('h3', {}, 'p99 latency (ms), per route'), latency,
    el('h3', {}, 'Open connections and stream clients'), gauges,
    el('div', { class: 'table-wrap' }, table)));

  const history = { rate: new Map(), p99: new Map(), connections: [], streams: [] };
  let previous = null;
  const poll = async () => {
    try {
      const samples = await app.weft.metrics();
      const now = performance.now();
      const routes = byRoute(samples);
      for (const route of routes.keys()) {
        if (!history.rate.has(route)) history.rate.set(route, []);
        if (!history.p99.has(route)) history.p99.set(route, []);
      }
      if (previous) {
        const seconds = (now - previous.at) / 1000;
        for (const [route, r] of routes) {
          const before = previous.routes.get(route);
          push(history.rate, route, (r.requests - (before?.requests ?? 0)) / seconds);
          const le = p99(before?.buckets, r.buckets);
          push(history.p99, route, le === null ? null : le === Infinity ? 10000 : le * 1000);
        }
      }
      history.connections.push(gauge(samples, 'weft_open_connections'));
      history.streams.push(gauge(samples, 'weft_stream_clients'));
      for (const list of [history.connections, history.streams]) while (list.length > POINTS) list.shift();
      previous = { at: now, routes };
      draw(rate, top(history.rate), 'req/s');
      draw(latency, top(history.p99), 'ms');
      draw(gauges, new Map([['open connections', history.connections], ['stream clients', history.streams]]), '');
      renderTable(table, history);
      replace(status);
    } catch (e) {
      app.fail(e, status);
    }
  };
  poll();
  const timer = setInterval(poll, POLL_MS);
  app.onLeave(() => clearInterval(timer));
}

function push(map, key, value) {
  if (!map.has(key)) map.set(key, []);
  const list = map.get(key);
  list.push(value);
  while (list.length > POINTS) list.shift();
}

/** The eight busiest routes of a per-route history. */
function top(map) {
  const sum = (list) => list.reduce((a, v) => a + (v ?? 0), 0);
  return new Map([...map].sort((a, b) => sum(b[1]) - sum(a[1])).slice(0, COLORS.length));
}

function renderTable(table, history) {
  const last = (list) => list?.at(-1);
  const fmt = (v, digits) => (v === null || v === undefined ? '-' : v.toFixed(digits));
  replace(table,
    el('thead', {}, el('tr', {}, el('th', {}, 'route'), el('th', {}, 'requests/s'), el('th', {}, 'p99 (ms)'))),
    el('tbody', {}, [...history.rate.keys()].sort().map((route) => el('tr', {},
      el('td', {}, route), el('td', {}, fmt(last(history.rate.get(route)), 2)), el('td', {}, fmt(last(history.p99.get(route)), 0))))));
}

/** Lines on a canvas: one per series (null values leave a gap), with a legend and the y scale. */
function draw(canvas, series, unit) {
  const g = canvas.getContext('2d');
  const { width, height } = canvas;
  const pad = { left: 50, right: 10, top: 10, bottom: 20 };
  g.clearRect(0, 0, width, height);
  let max = 0;
  for (const list of series.values()) for (const v of list) if (v !== null) max = Math.max(max, v);
  max = max > 0 ? max * 1.1 : 1;
  g.strokeStyle = '#ccc';
  g.fillStyle = '#555';
  g.font = '11px sans-serif';
  for (let i = 0; i <= 4; i++) {
    const y = pad.top + ((height - pad.top - pad.bottom) * i) / 4;
    g.beginPath(); g.moveTo(pad.left, y); g.lineTo(width - pad.right, y); g.stroke();
    g.fillText(((max * (4 - i)) / 4).toFixed(max < 10 ? 1 : 0) + (i === 0 ? ' ' + unit : ''), 2, y + 4);
  }
  const x = (i) => pad.left + ((width - pad.left - pad.right) * i) / (POINTS - 1);
  const y = (v) => height - pad.bottom - ((height - pad.top - pad.bottom) * v) / max;
  let n = 0;
  for (const [name, list] of series) {
    const color = COLORS[n % COLORS.length];
    g.strokeStyle = color;
    g.lineWidth = 2;
    g.beginPath();
    let drawing = false;
    const offset = POINTS - list.length;
    list.forEach((v, i) => {
      if (v === null) { drawing = false; return; }
      if (drawing) g.lineTo(x(offset + i), y(v)); else g.moveTo(x(offset + i), y(v));
      drawing = true;
    });
    g.stroke();
    list.forEach((v, i) => {
      if (v === null) return;
      g.fillStyle = color;
      g.fillRect(x(offset + i) - 2, y(v) - 2, 4, 4);
    });
    g.fillStyle = color;
    g.fillText(name, pad.left + 8 + (n % 4) * 210, pad.top + 12 + Math.floor(n / 4) * 14);
    n++;
  }
  g.lineWidth = 1;
}
