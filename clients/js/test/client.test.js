// The client against a real Weft: WEFT_URL, WEFT_USER and WEFT_PASSWORD name it (the JUnit test
// JavaScriptClientTest starts one and runs this file with them).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Weft, WeftError, idSegment, parsePrometheus } from '../weft.js';

const URL_ = process.env.WEFT_URL;
const USER = process.env.WEFT_USER;
const PASSWORD = process.env.WEFT_PASSWORD;
if (!URL_ || !USER || !PASSWORD) throw new Error('WEFT_URL, WEFT_USER and WEFT_PASSWORD must name a running Weft');

const DB = 'jsclient';
let weft;

before(async () => {
  weft = new Weft(URL_);
  await weft.login(USER, PASSWORD);
  await weft.createDatabase(DB);
});

const RUN = Date.now().toString(36);

async function freshCollection(name) {
  await weft.createCollection(DB, name + RUN);
  return name + RUN;
}

function until(condition, what, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error('timed out waiting for ' + (typeof what === 'function' ? what() : what)));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

test('login checks the password once, then sends the auth token in its place', async () => {
  const sent = [];
  const recording = (url, init) => {
    sent.push(init?.headers?.Authorization);
    return fetch(url, init);
  };
  const client = new Weft(URL_, { fetch: recording });
  await assert.rejects(client.login(USER, PASSWORD + 'x'), (e) => e instanceof WeftError && e.status === 401);
  assert.equal(client.session, null);
  const session = await client.login(USER, PASSWORD);
  assert.equal(session.user, USER);
  assert.match(session.token, /\./);
  assert.ok(Date.parse(session.validUntil) > Date.now());
  sent.length = 0;
  assert.ok(Array.isArray(await client.databases()));
  const decoded = Buffer.from(sent[0].slice('Basic '.length), 'base64').toString();
  assert.equal(decoded, `${USER}:${client.session.token}`);
  client.logout();
  assert.equal(client.session, null);
  await assert.rejects(client.databases(), (e) => e.status === 401);
});

test('documents: insert, read, update and replace under their ETag, 412 on a stale one, delete', async () => {
  const coll = await freshCollection('crud');
  const { id, etag } = await weft.insert(DB, coll, { name: 'ann', n: 1 });
  assert.match(id.$oid, /^[0-9a-f]{24}$/);
  const doc = await weft.get(DB, coll, id);
  assert.deepEqual({ name: doc.name, n: doc.n }, { name: 'ann', n: 1 });
  assert.equal(doc._etag.$oid, etag);

  const updated = await weft.update(DB, coll, id, { $inc: { n: 1 } }, { etag });
  await assert.rejects(weft.update(DB, coll, id, { n: 5 }, { etag }), (e) => e.status === 412);
  await weft.replace(DB, coll, id, { name: 'bob' }, { etag: updated.etag });
  const replaced = await weft.get(DB, coll, id);
  assert.equal(replaced.name, 'bob');
  assert.equal(replaced.n, undefined);

  // ids that are not ObjectIds keep their type through the URL
  for (const other of ['0123456789abcdef01234567', 42, 'with space']) {
    await weft.insert(DB, coll, { _id: other, v: String(other) });
    assert.equal((await weft.get(DB, coll, other)).v, String(other));
    await weft.remove(DB, coll, other);
    assert.equal(await weft.get(DB, coll, other), null);
  }
  await weft.remove(DB, coll, id);
  assert.equal(await weft.get(DB, coll, id), null);
  await assert.rejects(weft.insert(DB, 'nosuchcoll', { a: 1 }), (e) => e.status === 404 && /nosuchcoll/.test(e.message));
});

test('find: filter, sort, projection and pages, with the totals and the URL it asked', async () => {
  const coll = await freshCollection('find');
  await weft.insertMany(DB, coll, Array.from({ length: 25 }, (_, n) => ({ _id: n, n, odd: n % 2 === 1, pad: 'x' })));
  const page = await weft.find(DB, coll, {
    filter: { n: { $gte: 3 } }, sort: { n: -1 }, keys: { pad: 0 }, page: 2, pagesize: 10, count: true,
  });
  assert.deepEqual(page.documents.map((d) => d.n), [14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
  assert.ok(page.documents.every((d) => d.pad === undefined && typeof d.odd === 'boolean'));
  assert.equal(page.total, 22);
  assert.equal(page.pages, 3);
  assert.equal(page.url, `${URL_}/${DB}/${coll}?filter=%7B%22n%22%3A%7B%22%24gte%22%3A3%7D%7D&sort=%7B%22n%22%3A-1%7D`
    + '&keys=%7B%22pad%22%3A0%7D&page=2&pagesize=10&count=true');
  assert.equal(await weft.count(DB, coll, { odd: true }), 12);
  await assert.rejects(weft.find(DB, coll, { filter: '{bad' }), (e) => e.status === 400);
  const exported = (await weft.exportNdjson(DB, coll, { filter: { n: { $lt: 3 } }, sort: { _id: 1 } }))
    .trim().split('\n').map((l) => JSON.parse(l).n);
  assert.deepEqual(exported, [0, 1, 2]);
});

test('indexes: create, list, drop', async () => {
  const coll = await freshCollection('idx');
  await weft.createIndex(DB, coll, 'byName', { name: 1 }, { unique: true });
  const names = (await weft.indexes(DB, coll)).map((i) => i._id);
  assert.ok(names.includes('byName'), JSON.stringify(names));
  await weft.insert(DB, coll, { name: 'x' });
  await assert.rejects(weft.insert(DB, coll, { name: 'x' }), (e) => e.status === 409);
  await weft.dropIndex(DB, coll, 'byName');
  assert.ok(!(await weft.indexes(DB, coll)).map((i) => i._id).includes('byName'));
});

test('aggregations: a pipeline in the body, and one the collection defines, with avars', async () => {
  const coll = await freshCollection('aggr');
  await weft.insertMany(DB, coll, [{ k: 'a', n: 1 }, { k: 'a', n: 2 }, { k: 'b', n: 5 }]);
  assert.deepEqual(await weft.aggregatePipeline(DB, coll, [{ $group: { _id: '$k', total: { $sum: '$n' } } }, { $sort: { _id: 1 } }]),
    [{ _id: 'a', total: 3 }, { _id: 'b', total: 5 }]);
  await weft.createCollection(DB, coll, {
    aggrs: [{ uri: 'byKey', stages: [{ $match: { k: { $var: 'k' } } }, { $group: { _id: '$k', total: { $sum: '$n' } } }] }],
  });
  assert.deepEqual(await weft.aggregate(DB, coll, 'byKey', { k: 'b' }), [{ _id: 'b', total: 5 }]);
  await assert.rejects(weft.aggregate(DB, coll, 'nope'), (e) => e.status === 404);
});

test('ndjson import: progress per request, per-line errors numbered in the whole input', async () => {
  const coll = await freshCollection('ndjson');
  const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ _id: i + 1, text: 'line ' + (i + 1) }));
  lines[9] = '{not json';
  lines[44] = JSON.stringify({ _id: 1 }); // a duplicate of line 1
  const progress = [];
  const result = await weft.importNdjson(DB, coll, lines.join('\n') + '\n', {
    chunkBytes: 300, onProgress: (p) => progress.push(p),
  });
  assert.equal(result.inserted, 58);
  assert.equal(result.failed, 2);
  assert.deepEqual(result.errors.map((e) => e.line), [10, 45]);
  for (const e of result.errors) assert.doesNotMatch(e.message, new RegExp(`line (?!${e.line}\\b)\\d+`), 'a line number of its request');
  assert.ok(progress.length >= 5, `${progress.length} progress reports`);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].sentBytes > progress[i - 1].sentBytes);
  const total = Buffer.byteLength(lines.join('\n') + '\n');
  assert.deepEqual(progress.at(-1), { sentBytes: total, totalBytes: total, inserted: 58, failed: 2 });
  assert.equal(await weft.count(DB, coll), 58);
});

test('metrics parse into samples per route', async () => {
  const samples = await weft.metrics();
  assert.ok(samples.some((s) => s.name === 'weft_http_requests_total' && s.labels.route === '/{db}/{coll}'));
  assert.ok(samples.some((s) => s.name === 'weft_open_connections' && s.value >= 1));
  assert.ok(samples.some((s) => s.name === 'weft_stream_clients'));
  assert.deepEqual(parsePrometheus('a{x="q\\"z"} 2\n# c\nb 3.5'),
    [{ name: 'a', labels: { x: 'q"z' }, value: 2 }, { name: 'b', labels: {}, value: 3.5 }]);
  assert.deepEqual(idSegment('6b08132b6f40f3fd41c65ae4'), { segment: '6b08132b6f40f3fd41c65ae4', idType: 'STRING' });
});

/** A TCP relay to Weft whose connections the test can cut, as a network failure would. */
function cuttableRelay(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`,
    cut: () => { for (const s of sockets) s.destroy(); return sockets.size; },
    close: () => { for (const s of sockets) s.destroy(); server.close(); },
  })));
}

test('a stream whose connection is cut while writes go on resumes with no gap and no duplicate', async () => {
  const coll = await freshCollection('stream');
  const relay = await cuttableRelay(URL_);
  const reader = new Weft(relay.url);
  await reader.login(USER, PASSWORD);
  const seen = [];
  const states = [];
  const stream = reader.watch(DB, coll, {
    onEvent: (e) => seen.push(e.fullDocument.n), onState: (s) => states.push(s), minRetryMs: 20,
  });
  try {
    await until(() => stream.state === 'open', 'the stream to open');
    await weft.insert(DB, coll, { n: -1 }); // the stream is subscribed once this arrives
    await until(() => seen.length === 1, 'the first event');
    seen.length = 0;

    const total = 150;
    let written = 0;
    const writes = (async () => {
      for (let n = 0; n < total; n++) {
        await weft.insert(DB, coll, { n });
        written++;
        if (n % 20 === 0) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const where = () => `${seen.length} events, ${stream.connections} connections, ${stream.state}`;
    await until(() => seen.length >= 30, '30 events');
    assert.ok(relay.cut() > 0, 'the relay had connections to cut');
    assert.ok(written < total, `the cut came while writes went on (${written} of ${total} written)`);
    await until(() => seen.length >= 75 && stream.connections >= 2, () => 'events after the first cut: ' + where());
    relay.cut();
    await until(() => seen.length >= 110 && stream.connections >= 3, () => 'events after the second cut: ' + where());
    stream.dropConnection();
    await writes;
    await until(() => seen.length >= total, () => `all ${total} events: ` + where());
    await new Promise((r) => setTimeout(r, 200)); // a duplicate would arrive in this time
    assert.deepEqual(seen, Array.from({ length: total }, (_, n) => n));
    assert.ok(stream.connections >= 4, `reconnected ${stream.connections - 1} times`);
    assert.ok(states.filter((s) => s === 'connecting').length >= 3, states.join(','));
  } finally {
    stream.close();
    relay.close();
  }
});

test('pause, writes meanwhile, resume: the events written while paused arrive, once', async () => {
  const coll = await freshCollection('paused');
  const seen = [];
  const stream = weft.watch(DB, coll, { onEvent: (e) => seen.push(e.fullDocument.n) });
  try {
    await until(() => stream.state === 'open', 'the stream to open');
    await weft.insert(DB, coll, { n: 0 });
    await until(() => seen.length === 1, 'the first event');
    const clients = (await weft.metrics()).find((m) => m.name === 'weft_stream_clients').value;
    assert.ok(clients >= 1, `weft_stream_clients ${clients} while a stream is open`);
    stream.pause();
    assert.equal(stream.state, 'paused');
    for (let n = 1; n <= 5; n++) await weft.insert(DB, coll, { n });
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seen, [0]);
    stream.resume();
    await weft.insert(DB, coll, { n: 6 });
    await until(() => seen.length === 7, 'the events written while paused');
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6]);
  } finally {
    stream.close();
  }
});

test('a stream the server refuses ends with the error and does not retry', async () => {
  const errors = [];
  const stream = weft.watch(DB, 'nosuchcoll', { onError: (e) => errors.push(e) });
  await until(() => errors.length === 1, 'the error');
  assert.equal(errors[0].status, 404);
  assert.equal(stream.state, 'closed');
});
