// The Weft Console in a real headless Chromium (Debian's chromium), driven by playwright-core.
// ConsoleBrowserTest runs it against a TestServer: WEFT_URL, WEFT_USER, WEFT_PASSWORD name the
// server, CHROMIUM the browser; WEFT_CONSOLE_SCREENSHOTS=DIR writes a PNG of each view there.
// Exits non-zero on the first failed step.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { WEFT_URL, WEFT_USER, WEFT_PASSWORD } = process.env;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.WEFT_CONSOLE_SCREENSHOTS || null;
const DB = 'shop';
const COLL = 'orders';
const XSS_NAME = '<img src=x onerror="window.__weftXss = 1">';
const XSS_NOTE = '<script>window.__weftXss = 2</script>';

const admin = 'Basic ' + Buffer.from(`${WEFT_USER}:${WEFT_PASSWORD}`).toString('base64');

/** A call to Weft beside the browser (another client writing). */
async function api(method, path, body) {
  const response = await fetch(WEFT_URL + path, {
    method, headers: { Authorization: admin, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

let current = 'start';
async function step(name, fn) {
  current = name;
  const started = Date.now();
  await fn();
  console.log(`ok - ${name} (${Date.now() - started} ms)`);
}

async function shot(page, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name + '.png'), fullPage: true });
}

const profile = mkdtempSync(join(tmpdir(), 'weft-chromium-'));
let context;
try {
  const launching = Date.now();
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  console.log(`chromium started in ${Date.now() - launching} ms (node up ${Math.round(process.uptime() * 1000)} ms)`);
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(10000);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const id = (testid) => page.getByTestId(testid);

  await step('the console loads without credentials, with its security headers', async () => {
    const response = await page.goto(WEFT_URL + '/_console/');
    assert.equal(response.status(), 200);
    const headers = response.headers();
    assert.match(headers['content-security-policy'], /script-src 'self'/);
    assert.match(headers['content-security-policy'], /frame-ancestors 'none'/);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    await id('login-user').waitFor();
    await shot(page, 'login');
  });

  await step('a wrong password is refused, the right one logs in with a token kept for the tab', async () => {
    await id('login-user').fill(WEFT_USER);
    await id('login-password').fill(WEFT_PASSWORD + 'wrong');
    await id('login-submit').click();
    await page.getByText('Wrong user name or password.').waitFor();
    await id('login-password').fill(WEFT_PASSWORD);
    await id('login-submit').click();
    await id('db-list').waitFor();
    const session = JSON.parse(await page.evaluate(() => sessionStorage.getItem('weft.session')));
    assert.equal(session.user, WEFT_USER);
    assert.match(session.token, /\./);
    assert.equal(await page.evaluate(() => JSON.stringify(localStorage)), '{}');
  });

  await step('create a database and a collection', async () => {
    await id('new-db-name').fill(DB);
    await id('new-db-create').click();
    await id('db-list').getByText(DB, { exact: true }).waitFor();
    await id('new-coll-name').fill(COLL);
    await id('new-coll-create').click();
    await id('coll-list').getByText(COLL, { exact: true }).waitFor();
    await id('doc-table').getByText('No documents match.').waitFor();
  });

  await step('insert a document with the JSON editor, which refuses invalid JSON', async () => {
    await id('doc-new').click();
    await id('doc-editor').fill('{"item": "widget", "qty": }');
    await id('doc-validation').getByText(/Not valid JSON/).waitFor();
    assert.equal(await id('doc-save').isDisabled(), true);
    await id('doc-editor').fill('{"_id": "w1", "item": "widget", "qty": 1}');
    await id('doc-validation').getByText('Valid JSON document.').waitFor();
    await id('doc-save').click();
    await id('doc-saved').waitFor();
    await id('doc-table').getByText('"widget"').or(id('doc-table').getByText('widget')).first().waitFor();
  });

  await step('edit it and see the change in the table', async () => {
    await id('doc-editor').fill('{"_id": "w1", "item": "widget", "qty": 2, "status": "paid"}');
    await id('doc-save').click();
    await id('doc-table').getByText('paid').waitFor();
    await api('POST', `/${DB}/${COLL}`, { _id: 'w2', item: 'gadget', qty: 5, status: 'new' });
  });

  await step('a save over a version someone else changed says 412 plainly', async () => {
    await api('PATCH', `/${DB}/${COLL}/w1`, { qty: 3 });
    await id('doc-editor').fill('{"_id": "w1", "item": "widget", "qty": 20, "status": "paid"}');
    await id('doc-save').click();
    await id('doc-status').getByText(/changed since you opened it.*412/).waitFor();
    await id('doc-reload').click();
    await id('doc-status').getByText('Reloaded the current version.').waitFor();
    assert.match(await id('doc-editor').inputValue(), /"qty": 3/);
  });

  await step('filter, sort and projection run as the request shown', async () => {
    await id('filter-input').fill('{"status": "paid"}');
    await id('keys-input').fill('{"item": 1}');
    await id('filter-run').click();
    await id('request-line').getByText('filter={"status": "paid"}').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=doc-row]').length === 1);
    assert.match(await id('request-line').textContent(), /keys=\{"item": 1\}/);
    assert.doesNotMatch(await id('doc-table').textContent(), /qty/);
    await id('doc-row').first().click();
    await shot(page, 'documents');
    await id('filter-input').fill('');
    await id('keys-input').fill('');
    await id('sort-input').fill('{"_id": 1}');
    await id('filter-run').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=doc-row]').length === 2);
  });

  await step('a write appears in the live tail; pause, then resume from the last token', async () => {
    await id('tab-tail').click();
    await id('tail-state').getByText('open').waitFor();
    await api('POST', `/${DB}/${COLL}`, { _id: 'live1', item: 'from another client' });
    await id('live-tail').getByText('from another client').waitFor();
    await id('tail-toggle').click();
    await id('tail-state').getByText('paused').waitFor();
    await api('POST', `/${DB}/${COLL}`, { _id: 'live2', item: 'written while paused' });
    await page.waitForTimeout(300);
    assert.equal(await id('live-tail').getByText('written while paused').count(), 0);
    await id('tail-toggle').click();
    await id('live-tail').getByText('written while paused').waitFor();
    await api('POST', `/${DB}/${COLL}`, { _id: 'xss', name: XSS_NAME, note: XSS_NOTE });
    await id('live-tail').getByText('<img src=x onerror=').waitFor();
    assert.equal(await id('tail-count').textContent(), '3');
    await shot(page, 'live-tail');
  });

  await step('import a small ndjson file: progress and the per-line errors', async () => {
    await id('tab-transfer').click();
    const lines = [{ _id: 'i1', item: 'imported' }, { _id: 'i2' }, 'not json', { _id: 'i3' }, { _id: 'w1' }];
    await id('import-file').setInputFiles({
      name: 'small.ndjson', mimeType: 'application/x-ndjson',
      buffer: Buffer.from(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n'),
    });
    await id('import-result').getByText('3 inserted, 2 failed.').waitFor();
    assert.equal(await id('import-progress').evaluate((p) => p.value), 1);
    const errors = await id('import-error').allTextContents();
    assert.equal(errors.length, 2);
    assert.match(errors[0], /^line 3: /);
    assert.match(errors[1], /^line 5: .*duplicate/);
    const download = page.waitForEvent('download');
    await id('export-run').click();
    assert.equal((await download).suggestedFilename(), `${DB}-${COLL}.ndjson`);
    await shot(page, 'import-export');
  });

  await step('documents holding markup show it as text and run nothing', async () => {
    await id('tab-documents').click();
    await id('doc-table').getByText(XSS_NAME).waitFor();
    await id('doc-table').getByText(XSS_NOTE).waitFor();
    await id('doc-row').filter({ hasText: XSS_NOTE }).click();
    assert.match(await id('doc-editor').inputValue(), /onerror/);
    await page.waitForTimeout(300); // an injected image would have failed to load by now
    assert.equal(await page.evaluate(() => window.__weftXss), undefined);
    assert.equal(await page.locator('main img, main script').count(), 0);
  });

  await step('indexes: create and drop', async () => {
    await id('tab-indexes').click();
    await id('index-name').fill('byItem');
    await id('index-keys').fill('{"item": 1}');
    await id('index-create').click();
    await id('index-table').getByText('byItem').waitFor();
    await shot(page, 'indexes');
    await id('index-row').filter({ hasText: 'byItem' }).getByTestId('index-drop').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid=index-table]').textContent.includes('byItem'));
  });

  await step('users and access rules', async () => {
    await page.getByTestId('nav-admin').click();
    await id('user-name').fill('clerk');
    await id('user-password').fill('Clerk-password-1');
    await id('user-roles').fill('clerk');
    await id('user-save').click();
    await id('user-table').getByText('clerk', { exact: true }).first().waitFor();
    await id('rule-new').click();
    await id('doc-editor').fill(JSON.stringify({ _id: 'clerks-read-shop', roles: ['clerk'], predicate: "method(GET) and path-prefix('/shop')", priority: 1 }));
    await id('doc-save').click();
    await id('rule-table').getByText('clerks-read-shop').waitFor();
    const rule = await (await api('GET', '/weft/acl/clerks-read-shop')).json();
    assert.deepEqual(rule.roles, ['clerk']);
    await shot(page, 'users-and-rules');
  });

  await step('metrics charts fill from /metrics', async () => {
    await page.getByTestId('nav-metrics').click();
    await id('metrics-chart').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=metrics-table] tbody tr').length > 0, null, { timeout: 8000 });
    assert.match(await id('metrics-table').textContent(), /\/\{db\}\/\{coll\}/);
    if (SHOTS) { // a few polls under some traffic, so the charts have lines
      const until = Date.now() + 9000;
      while (Date.now() < until) await Promise.all([api('GET', `/${DB}/${COLL}`), api('GET', `/${DB}/${COLL}/w1`)]);
    }
    await shot(page, 'metrics');
  });

  await step('log out forgets the token', async () => {
    await page.getByTestId('logout').click();
    await id('login-user').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('weft.session')), null);
    assert.deepEqual(pageErrors, []);
  });
  console.log('all steps passed');
} catch (e) {
  console.error(`not ok - ${current}\n${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await context?.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}
// fetch's idle keep-alive connections to Weft would hold the process for seconds more
process.exit(process.exitCode ?? 0);
