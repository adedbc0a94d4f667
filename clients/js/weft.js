// Weft's JavaScript client: an ES module with no dependencies, for browsers and Node (18+).
// It speaks only Weft's public HTTP API (README.md); the Weft Console is built on it.
// Types: weft.d.ts beside this file.

/** An answer of 400 or more, with Weft's error message; or a stream the server ended. */
export class WeftError extends Error {
  constructor(status, message, body = null) {
    super(message);
    this.name = 'WeftError';
    this.status = status;
    this.body = body;
  }

  /** The error a failed response describes (Weft's `{"http status code", ..., "message"}`). */
  static async from(response) {
    const text = await response.text().catch(() => '');
    let body = null;
    try { body = JSON.parse(text); } catch { /* not JSON: keep the text */ }
    const message = (body && typeof body.message === 'string' && body.message)
      || text || `HTTP ${response.status}`;
    return new WeftError(response.status, message, body);
  }
}

/** Statuses worth trying again unchanged later (the stream reconnects on them). */
const TRANSIENT = new Set([408, 429, 502, 503, 504]);

const encoder = new TextEncoder();

function base64(text) {
  let binary = '';
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** `Basic` credentials; the user name and the secret may hold any Unicode (sent as UTF-8). */
export function basicAuthorization(user, secret) {
  return 'Basic ' + base64(`${user}:${secret}`);
}

/**
 * How a document's `_id` goes in a URL: the segment, and the `id_type` Weft needs to read it
 * back as the same value (a 24-hex-digit string would otherwise be an ObjectId).
 */
export function idSegment(id) {
  if (id !== null && typeof id === 'object') {
    if (typeof id.$oid === 'string') return { segment: id.$oid, idType: null };
    if ('$date' in id) {
      const ms = typeof id.$date === 'number' ? id.$date : Date.parse(id.$date);
      return { segment: String(ms), idType: 'DATE' };
    }
    throw new TypeError('an _id object other than {$oid} or {$date} has no URL: ' + JSON.stringify(id));
  }
  if (typeof id === 'number') return { segment: String(id), idType: 'NUMBER' };
  if (typeof id === 'boolean') return { segment: String(id), idType: 'BOOLEAN' };
  if (typeof id === 'string') {
    return { segment: id, idType: /^[0-9a-fA-F]{24}$/.test(id) || /^\d+$/.test(id) ? 'STRING' : null };
  }
  throw new TypeError('unsupported _id: ' + JSON.stringify(id));
}

/** A query parameter's text: objects and arrays as JSON, the rest as they print. */
function paramText(value) {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Reads an SSE body: yields `{event, id, data}` per event; comments (heartbeats) call onActivity. */
async function* serverSentEvents(body, onActivity) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { event: 'message', id: null, data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (event.data.length > 0) yield { event: event.event, id: event.id, data: event.data.join('\n') };
          event = { event: 'message', id: null, data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data.push(text);
        else if (field === 'id') event.id = text;
        else if (field === 'event') event.event = text;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Whether resume token `a` comes after `b` (tokens are fixed-width hex positions in the log). */
function after(a, b) {
  return b == null || a.length > b.length || (a.length === b.length && a > b);
}

/**
 * A change stream that reconnects by itself and resumes after the last event it delivered, so a
 * dropped connection loses nothing and repeats nothing. Over SSE read with fetch, so the same
 * code runs in browsers and in Node and the credentials travel in a header.
 */
export class ChangeStream {
  #client; #path; #params; #handlers; #options;
  #abort = null;
  #wanted = true;
  #running = null;
  #timer = null;

  constructor(client, path, params, handlers, options) {
    this.#client = client;
    this.#path = path;
    this.#params = params;
    this.#handlers = handlers;
    this.#options = options;
    /** The token of the last event delivered; the stream resumes after it. */
    this.lastToken = options.resumeAfter ?? null;
    /** connecting | open | paused | closed */
    this.state = 'connecting';
    /** How many times the connection was opened (1 + the reconnections). */
    this.connections = 0;
    this.#start();
  }

  /** Stops receiving; `resume()` goes on after the last event delivered. */
  pause() {
    this.#wanted = false;
    this.#abort?.abort();
    this.#setState('paused');
  }

  /** Reconnects after the last event delivered (after a pause, or after an error closed it). */
  resume() {
    if (this.#wanted) return;
    this.#wanted = true;
    this.#start();
  }

  close() {
    this.#wanted = false;
    this.#abort?.abort();
    this.#setState('closed');
  }

  /** Ends the current connection as a network failure would (the stream reconnects). */
  dropConnection() {
    this.#abort?.abort(new Error('connection dropped'));
  }

  #setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.#handlers.onState?.(state);
  }

  #start() {
    const previous = this.#running ?? Promise.resolve();
    this.#running = previous.then(() => this.#run());
  }

  async #run() {
    let delay = this.#options.minRetryMs;
    while (this.#wanted) {
      const abort = new AbortController();
      this.#abort = abort;
      this.#setState('connecting');
      try {
        const delivered = await this.#connect(abort);
        if (delivered) delay = this.#options.minRetryMs;
      } catch (e) {
        if (!this.#wanted) break;
        if (e instanceof WeftError && !TRANSIENT.has(e.status)) {
          this.#wanted = false;
          this.#setState('closed');
          this.#handlers.onError?.(e);
          break;
        }
      } finally {
        clearTimeout(this.#timer);
      }
      if (!this.#wanted) break;
      this.#setState('connecting');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, this.#options.maxRetryMs);
    }
  }

  /** One connection: true when it delivered something (the back-off starts over). */
  async #connect(abort) {
    const params = { ...this.#params };
    if (this.lastToken) params.resumeAfter = this.lastToken;
    const watchdog = () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => abort.abort(new Error('stream idle')), this.#options.idleTimeoutMs);
    };
    watchdog();
    const response = await this.#client.fetchRaw('GET', this.#path, {
      params, headers: { Accept: 'text/event-stream' }, signal: abort.signal,
    });
    if (!response.ok) throw await WeftError.from(response);
    this.connections++;
    this.#setState('open');
    let delivered = false;
    for await (const frame of serverSentEvents(response.body, watchdog)) {
      if (frame.event === 'close') {
        const why = JSON.parse(frame.data);
        // 1013: this client fell behind and was cut off; it may resume at once
        throw new WeftError(why.code === 1013 ? 503 : why.code, why.reason, why);
      }
      if (frame.event !== 'message') continue;
      const event = JSON.parse(frame.data);
      const token = frame.id || event._id?._data;
      if (token && !after(token, this.lastToken)) continue; // already delivered
      if (token) this.lastToken = token;
      delivered = true;
      this.#handlers.onEvent?.(event);
      if (event.operationType === 'invalidate') {
        this.#wanted = false;
        this.#setState('closed');
        return delivered;
      }
    }
    return delivered;
  }
}

/** Prometheus text as samples: `{name, labels, value}`. */
export function parsePrometheus(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/**
 * A Weft server. `login` once with a password; from then on every request carries the user's
 * `Auth-Token` (Basic user:token), renewed whenever the server announces a new one.
 */
export class Weft {
  #fetch;
  #session = null;

  /**
   * @param url the server's base URL ('' in a page served by Weft: the same origin)
   * @param options.fetch a fetch implementation (the global one by default)
   * @param options.session a session from `session` (kept by the caller across page loads)
   * @param options.onSession called with the session whenever it changes (null on logout)
   */
  constructor(url = '', options = {}) {
    this.url = url.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#session = options.session ?? null;
    this.onSession = options.onSession ?? (() => {});
  }

  /** `{user, token, validUntil}` while logged in, else null. */
  get session() {
    return this.#session;
  }

  /** Checks the password once (Basic) and keeps the auth token the server answers with. */
  async login(user, password) {
    const response = await this.#fetch(this.url + '/ping', {
      headers: { Authorization: basicAuthorization(user, password), 'No-Auth-Challenge': 'true' },
    });
    if (!response.ok) throw await WeftError.from(response);
    const token = response.headers.get('Auth-Token');
    if (!token) throw new WeftError(503, 'the server issued no auth token; try again later');
    this.#setSession({ user, token, validUntil: response.headers.get('Auth-Token-Valid-Until') });
    return this.#session;
  }

  /** Forgets the token (it stays valid on the server until it expires). */
  logout() {
    this.#setSession(null);
  }

  #setSession(session) {
    this.#session = session;
    this.onSession(session);
  }

  /** The URL of `path` with `params` (objects as JSON, arrays as repeated parameters). */
  urlOf(path, params = {}) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined || value === null || value === '') continue;
      for (const v of Array.isArray(value) && name !== 'keys' && name !== 'arrayFilters' ? value : [value]) {
        query.append(name, paramText(v));
      }
    }
    const text = query.toString();
    return this.url + path + (text ? '?' + text : '');
  }

  /** One request, answered as it came (no error thrown for 4xx/5xx). */
  async fetchRaw(method, path, { params, body, headers = {}, signal } = {}) {
    const h = { 'No-Auth-Challenge': 'true', ...headers };
    if (this.#session) h.Authorization = basicAuthorization(this.#session.user, this.#session.token);
    let payload = body;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      payload = JSON.stringify(body);
      h['Content-Type'] ??= 'application/json';
    } else if (typeof body === 'string') {
      h['Content-Type'] ??= 'application/json';
    }
    const response = await this.#fetch(this.urlOf(path, params), { method, headers: h, body: payload, signal });
    const token = response.headers.get('Auth-Token');
    if (token && this.#session && token !== this.#session.token) {
      this.#setSession({ ...this.#session, token, validUntil: response.headers.get('Auth-Token-Valid-Until') });
    }
    return response;
  }

  /** One request; a status of 400 or more throws a WeftError. */
  async request(method, path, options = {}) {
    const response = await this.fetchRaw(method, path, options);
    if (!response.ok) throw await WeftError.from(response);
    return response;
  }

  async #json(method, path, options) {
    const response = await this.request(method, path, options);
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  // --- databases and collections ----------------------------------------------------------

  databases({ page, pagesize } = {}) {
    return this.#json('GET', '/', { params: { page, pagesize } });
  }

  collections(db, { page, pagesize } = {}) {
    return this.#json('GET', path(db), { params: { page, pagesize } });
  }

  async createDatabase(db, properties) {
    await this.request('PUT', path(db), { body: properties });
  }

  async createCollection(db, coll, properties) {
    await this.request('PUT', path(db, coll), { body: properties });
  }

  /** Drops a collection (its current ETag is read first: Weft needs If-Match). */
  async dropCollection(db, coll) {
    const etag = (await this.request('GET', path(db, coll, '_meta'))).headers.get('ETag');
    await this.request('DELETE', path(db, coll), { headers: { 'If-Match': etag } });
  }

  async dropDatabase(db) {
    const etag = (await this.request('GET', path(db, '_meta'))).headers.get('ETag');
    await this.request('DELETE', path(db), { headers: { 'If-Match': etag } });
  }

  // --- documents ---------------------------------------------------------------------------

  /**
   * One page of documents. `query`: filter, sort, keys (projection), page, pagesize, count,
   * hint. Answers the documents, the URL it asked (what the request was) and, with
   * `count: true`, the totals.
   */
  async find(db, coll, query = {}) {
    const params = { ...query };
    if (params.count) params.count = 'true';
    else delete params.count;
    const url = this.urlOf(path(db, coll), params);
    const response = await this.request('GET', path(db, coll), { params });
    const result = { documents: await response.json(), url };
    const total = response.headers.get('X-Total-Count');
    if (total !== null) {
      result.total = Number(total);
      result.pages = Number(response.headers.get('X-Total-Pages'));
    }
    return result;
  }

  async count(db, coll, filter) {
    return (await this.#json('GET', path(db, coll, '_size'), { params: { filter } }))._size;
  }

  /** The document, or null when there is none. */
  async get(db, coll, id) {
    const { segment, idType } = idSegment(id);
    const response = await this.fetchRaw('GET', path(db, coll, segment), { params: { id_type: idType } });
    if (response.status === 404) return null;
    if (!response.ok) throw await WeftError.from(response);
    return response.json();
  }

  /** Inserts one document; answers its `_id` (the generated ObjectId when it had none), Location and ETag. */
  async insert(db, coll, document) {
    const response = await this.request('POST', path(db, coll), { body: document });
    const location = response.headers.get('Location') ?? '';
    const segment = decodeURIComponent(location.slice(location.lastIndexOf('/') + 1));
    const id = document._id !== undefined ? document._id
      : /^[0-9a-f]{24}$/.test(segment) ? { $oid: segment } : segment;
    return { id, location, etag: response.headers.get('ETag') };
  }

  /** A JSON array insert: Weft's bulk result (207 when some were refused). */
  insertMany(db, coll, documents, { atomic } = {}) {
    return this.#json('POST', path(db, coll), { body: documents, params: { atomic } });
  }

  /** Replaces the document; with `etag`, only if it is still that version (else 412). */
  async replace(db, coll, id, document, { etag, upsert } = {}) {
    return this.#write('PUT', db, coll, id, document, { etag, upsert });
  }

  /** Applies update operators (a plain object means $set); `etag` as for replace. */
  async update(db, coll, id, update, { etag, upsert } = {}) {
    return this.#write('PATCH', db, coll, id, update, { etag, upsert });
  }

  async remove(db, coll, id, { etag } = {}) {
    return this.#write('DELETE', db, coll, id, undefined, { etag });
  }

  async #write(method, db, coll, id, body, { etag, upsert }) {
    const { segment, idType } = idSegment(id);
    const response = await this.request(method, path(db, coll, segment), {
      body, params: { id_type: idType, wm: upsert ? 'upsert' : undefined }, headers: etag ? { 'If-Match': etag } : {},
    });
    return { etag: response.headers.get('ETag') };
  }

  updateMany(db, coll, filter, update) {
    return this.#json('PATCH', path(db, coll, '*'), { params: { filter }, body: update });
  }

  removeMany(db, coll, filter) {
    return this.#json('DELETE', path(db, coll, '*'), { params: { filter } });
  }

  // --- indexes, aggregations, metrics --------------------------------------------------------

  indexes(db, coll) {
    return this.#json('GET', path(db, coll, '_indexes'));
  }

  async createIndex(db, coll, name, keys, ops) {
    await this.request('PUT', path(db, coll, '_indexes', name), { body: ops ? { keys, ops } : { keys } });
  }

  async dropIndex(db, coll, name) {
    await this.request('DELETE', path(db, coll, '_indexes', name));
  }

  /** Runs the collection's aggregation `name` (RESTHeart's `/_aggrs/{name}`) with `avars`. */
  aggregate(db, coll, name, avars, { page, pagesize } = {}) {
    return this.#json('GET', path(db, coll, '_aggrs', name), { params: { avars, page, pagesize } });
  }

  /** Runs `stages` (POST `/_aggrs`: admins, or rules with allowAdhocAggregations). */
  aggregatePipeline(db, coll, stages, { page, pagesize } = {}) {
    return this.#json('POST', path(db, coll, '_aggrs'), { body: stages, params: { page, pagesize } });
  }

  /** `/metrics` as samples (see parsePrometheus). */
  async metrics() {
    return parsePrometheus(await (await this.request('GET', '/metrics')).text());
  }

  // --- ndjson ---------------------------------------------------------------------------------

  /**
   * Imports ndjson (a string, Blob or bytes) in requests of about `chunkBytes`, so progress is
   * known as each is answered: `onProgress({sentBytes, totalBytes, inserted, failed})`. Bad lines
   * do not stop good ones; `errors` name each with its line number in the whole input (each
   * request reports at most its first 100).
   */
  async importNdjson(db, coll, input, { chunkBytes = 1 << 20, onProgress } = {}) {
    const text = typeof input === 'string' ? input
      : input instanceof Uint8Array ? new TextDecoder().decode(input)
        : await input.text();
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const totalBytes = encoder.encode(text).length;
    const result = { inserted: 0, failed: 0, errors: [] };
    let sentBytes = 0;
    for (let first = 0; first < lines.length;) {
      let last = first;
      let bytes = 0;
      do {
        bytes += encoder.encode(lines[last]).length + 1;
        last++;
      } while (last < lines.length && bytes < chunkBytes);
      const body = lines.slice(first, last).join('\n') + '\n';
      const answer = await this.#json('POST', path(db, coll), {
        body, headers: { 'Content-Type': 'application/x-ndjson' },
      });
      result.inserted += answer.inserted;
      result.failed += answer.failed;
      for (const e of answer.errors ?? []) {
        // the server numbers the lines of its request; the caller knows only the whole input
        const line = e.line + first;
        result.errors.push({ ...e, line, message: e.message.replace(new RegExp(`^line ${e.line}\\b`), `line ${line}`) });
      }
      sentBytes = Math.min(totalBytes, sentBytes + bytes);
      first = last;
      onProgress?.({ sentBytes, totalBytes, inserted: result.inserted, failed: result.failed });
    }
    if (lines.length === 0) onProgress?.({ sentBytes: 0, totalBytes: 0, inserted: 0, failed: 0 });
    return result;
  }

  /** Every document the query matches (no page limit), as ndjson text. */
  async exportNdjson(db, coll, { filter, sort, keys, hint } = {}) {
    const response = await this.request('GET', path(db, coll), {
      params: { filter, sort, keys, hint }, headers: { Accept: 'application/x-ndjson' },
    });
    return response.text();
  }

  // --- change streams -------------------------------------------------------------------------

  /**
   * Follows the collection's changes: `onEvent(event)` for each, in commit order, exactly once,
   * across reconnections. Options: filter (ad-hoc stream) or name + avars (a named stream),
   * leaves, resumeAfter (a token: start after it), onState(state), onError(error) (the stream
   * ended and will not reconnect by itself: access refused, token too old, credentials
   * expired; `resume()` tries again), minRetryMs, maxRetryMs, idleTimeoutMs (no byte, not
   * even a heartbeat, for that long: the connection is taken for dead).
   */
  watch(db, coll, options = {}) {
    const { filter, name, avars, leaves, onEvent, onState, onError } = options;
    const streamPath = name ? path(db, coll, '_streams', name) : path(db, coll, '_streams');
    return new ChangeStream(this, streamPath, { filter, avars, leaves: leaves ? 'true' : undefined },
      { onEvent, onState, onError }, {
        resumeAfter: options.resumeAfter ?? null,
        minRetryMs: options.minRetryMs ?? 100,
        maxRetryMs: options.maxRetryMs ?? 5000,
        idleTimeoutMs: options.idleTimeoutMs ?? 45000,
      });
  }
}

function path(...segments) {
  return '/' + segments.map((s) => encodeURIComponent(s)).join('/');
}
