#!/usr/bin/env node
// The debug page in a real browser: Debian's chromium, headless, driven by playwright-core.
//
//   node ci/browser/check.mjs DEBUG_URL MCP_URL SCREENSHOT.png
//
// Checks: the served HTML lists the functions without script; the page loads with no
// console error; it lists the demo's functions; a function's schema renders; create_order
// runs from the form generated from its schema and shows the outcome and its dialog; a
// delegate's refusal shows as Denied; the live feed shows a call made from outside the page
// (over MCP). Keeps a screenshot. Ends with `N passed, M failed`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeDir = process.env.BROWSER_NODE_DIR ?? path.resolve(here, '../.cache/browser-node');
const req = createRequire(path.join(nodeDir, 'package.json'));
const { chromium } = req('playwright-core');

const [debugUrl, mcpUrl, shot] = process.argv.slice(2);
if (!shot) {
  console.error('usage: node check.mjs DEBUG_URL MCP_URL SCREENSHOT.png');
  process.exit(2);
}
let passed = 0;
let failed = 0;
const check = (name, cond, detail = '') => {
  if (cond) { passed++; console.log(`PASS browser ${name}${detail ? ` (${detail})` : ''}`); } else { failed++; console.log(`FAIL browser ${name}: ${detail || 'condition false'}`); }
  return cond;
};

const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'af-chromium-'));
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: flags,
    viewport: { width: 1400, height: 1000 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  const raw = await (await context.request.get(debugUrl)).text();
  check('the served HTML lists the functions without script', raw.includes('<code>create_order</code>') && raw.includes('<code>list_notes</code>'));
  check('the page loads no external resource', !/(src|href)="(https?:)?\/\//.test(raw));

  await page.goto(debugUrl, { waitUntil: 'load' });
  await page.waitForSelector('#feed-state:text("connected")', { timeout: 15000 }).catch(() => {});
  const ids = await page.$$eval('#functions li[data-id]', (lis) => lis.map((l) => l.dataset.id));
  check("the page lists the demo's functions", ['create_order', 'cancel_order', 'list_notes', 'create_note', 'order_stats', 'search_order'].every((f) => ids.includes(f)), ids.join(','));
  check('the live feed is connected', (await page.textContent('#feed-state')) === 'connected', await page.textContent('#feed-state'));

  await page.click('#functions li[data-id="create_order"]');
  await page.waitForFunction(() => document.getElementById('schema').textContent.includes('quantity'), null, { timeout: 10000 });
  const schema = JSON.parse(await page.textContent('#schema'));
  check('a function\'s parameters schema renders', schema.properties?.quantity?.type === 'integer' && schema.required?.includes('customer'), JSON.stringify(schema).slice(0, 120));
  const exportsShown = await page.$$eval('#exports pre', (ps) => ps.map((p) => p.dataset.format));
  check('its exports render (MCP tool, Android XML)', exportsShown.includes('mcp') && exportsShown.includes('android-xml'), exportsShown.join(','));

  await page.fill('#fields [name="customer"]', 'browser');
  await page.fill('#fields [name="quantity"]', '2');
  await page.selectOption('#platform', 'android');
  await page.fill('#caller', 'com.example.agent');
  await page.click('#run');
  await page.waitForFunction(() => !document.getElementById('outcome').hidden && document.getElementById('o-status').textContent !== '', null, { timeout: 10000 });
  const status = await page.textContent('#o-status');
  const dialog = await page.textContent('#o-dialog');
  check('create_order runs from the form: the outcome', status === 'success', `${status}: ${await page.textContent('#o-result')}`);
  check('and its dialog', dialog.includes('created for browser'), dialog);

  await page.click('#functions li[data-id="cancel_order"]');
  await page.waitForSelector('#fields [name="order"]', { timeout: 10000 });
  await page.fill('#fields [name="order"]', 'o-1');
  await page.selectOption('#platform', 'other');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('o-code').textContent !== '', null, { timeout: 10000 });
  const code = await page.textContent('#o-code');
  check("a delegate's refusal shows as Denied", code === 'Denied', `${code}: ${await page.textContent('#o-message')}`);

  // a call from outside the page: an MCP client over HTTP
  const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await fetch(mcpUrl, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-lane', version: '0' } } }) });
  const sid = init.headers.get('mcp-session-id');
  await fetch(mcpUrl, { method: 'POST', headers: { ...h, 'Mcp-Session-Id': sid }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const call = await fetch(mcpUrl, { method: 'POST', headers: { ...h, 'Mcp-Session-Id': sid }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_notes', arguments: {} } }) });
  await call.text();
  const seen = await page.waitForFunction(() => [...document.querySelectorAll('#feed li')].some((l) => l.textContent.includes('list_notes')), null, { timeout: 10000 }).then(() => true, () => false);
  check('the live feed shows a call made from outside the page', seen, (await page.textContent('#feed')).slice(0, 200));

  await page.fill('#metadata', '{"ShopName": "Browser shop"}');
  await page.click('#view-form button');
  await page.waitForFunction(() => !document.getElementById('view-tools').hidden, null, { timeout: 10000 });
  check("an agent view's tool list renders", (await page.textContent('#view-tools')).includes('"orders"'));

  await page.screenshot({ path: shot, fullPage: true });
  check('no console error', consoleErrors.length === 0, consoleErrors.join(' | '));
} catch (e) {
  check('suite', false, `${e.name}: ${e.message}`);
} finally {
  await context?.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
