#!/usr/bin/env node
// Peer test: the official TypeScript MCP SDK's Streamable HTTP client against the sample
// web host (handshake era: the SDK 1.x speaks 2025-11-25 and older).
//
//   node ci/http/client_check.mjs URL
//
// Checks: connect (a session id is issued), tools/list across pages (cursors), valid,
// invalid and unknown calls, the orders toolkit expanding with
// notifications/tools/list_changed on the GET stream, a cancelled call (the SDK sends
// notifications/cancelled) after which the session still answers, and session end
// (DELETE; the old id is then 404). Prints one line per check and `N passed, M failed`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeDir = process.env.MCP_NODE_DIR ?? path.resolve(here, '../.cache/mcp-node');
const req = createRequire(path.join(nodeDir, 'package.json'));
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = req('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { McpError, ToolListChangedNotificationSchema } = req('@modelcontextprotocol/sdk/types.js');
const sdkVersion = JSON.parse(readFileSync(path.join(nodeDir, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version;

const url = process.argv[2];
if (!url) {
  console.error('usage: node client_check.mjs URL');
  process.exit(2);
}
let passed = 0;
let failed = 0;
const check = (name, cond, detail = '') => {
  if (cond) { passed++; console.log(`PASS ts ${name}${detail ? ` (${detail})` : ''}`); } else { failed++; console.log(`FAIL ts ${name}: ${detail || 'condition false'}`); }
  return cond;
};
const texts = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' | ');
const withTimeout = (p, ms, what) => Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

console.log(`ts client: @modelcontextprotocol/sdk ${sdkVersion} StreamableHTTPClientTransport; server: ${url}`);
try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'appfunctions-http-check', version: '0.0.0' });
  let changed = 0;
  let onChange = () => {};
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; onChange(); });
  await withTimeout(client.connect(transport), 30000, 'connect');
  const sid = transport.sessionId;
  check('connect issues a session id', typeof sid === 'string' && sid.length >= 16, `Mcp-Session-Id ${sid}`);
  check('the handshake advertises tools.listChanged', client.getServerCapabilities()?.tools?.listChanged === true);

  const listAll = async () => {
    const names = [];
    let cursor;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    return { names, pages };
  };
  const { names, pages } = await listAll();
  check('tools/list follows cursors across pages', pages > 1 && names.includes('create_order') && names.includes('orders'), `${pages} pages: ${names.join(',')}`);
  check('the orders toolkit is one container', !names.includes('order_stats'));

  const ok = await client.callTool({ name: 'create_order', arguments: { customer: 'ts', quantity: 2 } });
  check('create_order succeeds with structuredContent', ok.isError !== true && ok.structuredContent?.customer === 'ts', texts(ok));
  check('the dialog comes with the result', texts(ok).includes('created for ts'), texts(ok));
  const bad = await client.callTool({ name: 'create_order', arguments: { customer: 'ts', quantity: 'two' } });
  check('a bad argument is a tool error naming it', bad.isError === true && texts(bad).includes('quantity'), texts(bad));
  const denied = await client.callTool({ name: 'cancel_order', arguments: { order: 'o-1' } });
  check('a delegate refusal is a tool error', denied.isError === true && texts(denied).includes('Sign in'), texts(denied));
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    check('an unknown tool is -32602', false, 'got a result');
  } catch (e) {
    check('an unknown tool is -32602', e instanceof McpError && e.code === -32602, `${e.code}: ${e.message}`);
  }

  // the GET stream carries list_changed when the container expands (the SDK opens it after
  // initialized)
  const gotChange = new Promise((resolve) => { onChange = resolve; if (changed) resolve(); });
  const exp = await client.callTool({ name: 'orders', arguments: {} });
  check('calling the container expands it', exp.isError !== true && texts(exp).includes('order_stats'), texts(exp));
  let seen = true;
  await withTimeout(gotChange, 10000, 'list_changed').catch(() => { seen = false; });
  check('notifications/tools/list_changed arrives on the server stream', seen, `${changed} seen`);
  const after = await listAll();
  check('the members are listed after the expansion', after.names.includes('order_stats') && !after.names.includes('orders'), after.names.join(','));
  const stats = await client.callTool({ name: 'order_stats', arguments: {} });
  check('a member runs', stats.isError !== true && typeof stats.structuredContent?.open === 'number', texts(stats));

  // cancel: the SDK sends notifications/cancelled when the signal aborts
  const ac = new AbortController();
  const t0 = Date.now();
  const slow = client.callTool({ name: 'wait', arguments: { seconds: 30 } }, undefined, { signal: ac.signal });
  setTimeout(() => ac.abort('the check cancels it'), 300);
  try {
    await slow;
    check('a cancelled call ends early', false, 'it completed');
  } catch (e) {
    check('a cancelled call ends early', Date.now() - t0 < 10000, `${Date.now() - t0} ms: ${e.message}`);
  }
  const ping = await client.ping();
  check('the session still answers after the cancel', ping !== undefined);

  await transport.terminateSession();
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
  });
  check('after DELETE the session id is unknown (404)', r.status === 404, `HTTP ${r.status}`);
  await client.close();
} catch (e) {
  check('suite', false, `${e.name}: ${e.message}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
