#!/usr/bin/env node
// Peer test: the official TypeScript MCP SDK client against a stdio MCP server.
//
//   node ci/mcp/client_check.mjs [--quiet-server] -- SERVER_CMD [ARGS...]
//
// Spawns SERVER_CMD over stdio with @modelcontextprotocol/sdk's Client and runs
// the same checks as client_check.py. Schemas are checked against the JSON
// Schema draft 2020-12 meta-schema with Ajv2020; structuredContent is checked
// twice: by the SDK's own validator inside callTool (what real clients get)
// and by Ajv2020. Prints one line per check and ends with the plain line
// `N passed, M failed`; exits 1 on any failure (2 on usage errors).
//
// Packages come from the folder made by ci/mcp/setup.sh
// (ci/.cache/mcp-node, or $MCP_NODE_DIR).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeDir = process.env.MCP_NODE_DIR ?? path.resolve(here, '../.cache/mcp-node');
const req = createRequire(path.join(nodeDir, 'package.json'));
let Client, StdioClientTransport, McpError, Ajv2020, sdkVersion, ajvVersion;
try {
  ({ Client } = req('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js'));
  ({ McpError } = req('@modelcontextprotocol/sdk/types.js'));
  Ajv2020 = req('ajv/dist/2020').default;
  sdkVersion = JSON.parse(readFileSync(path.join(nodeDir, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version;
  ajvVersion = req('ajv/package.json').version;
} catch (e) {
  console.error(`cannot load the SDK from ${nodeDir} (run ci/mcp/setup.sh): ${e.message}`);
  process.exit(2);
}

const EXPECTED_TOOLS = ['create_order', 'cancel_order', 'list_notes', 'create_note', 'edit_note', 'search_order'];
const SIGN_IN_TEXT = 'Sign in to cancel orders.';
const TOOL_NAME_RE = /^[A-Za-z0-9_.\-]{1,128}$/;
const STEP_TIMEOUT_MS = 1000 * Number(process.env.MCP_CHECK_STEP_TIMEOUT ?? 30);
const CONNECT_TIMEOUT_MS = 1000 * Number(process.env.MCP_CHECK_CONNECT_TIMEOUT ?? 60);

let passed = 0;
let failed = 0;
const ok = (name, detail = '') => { passed++; console.log(`PASS ${name}${detail ? ` (${detail})` : ''}`); };
const bad = (name, detail) => { failed++; console.log(`FAIL ${name}: ${detail}`); };
const check = (name, cond, detail = '', failDetail = '') => {
  if (cond) ok(name, detail); else bad(name, failDetail || detail || 'condition false');
  return cond;
};
const short = (s, n = 160) => {
  s = String(s).replaceAll('\n', ' | ');
  return s.length <= n ? s : `${s.slice(0, n - 3)}...`;
};
const texts = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

function usage() {
  console.error('usage: node client_check.mjs [--quiet-server] -- SERVER_CMD [ARGS...]');
  process.exit(2);
}

const argv = process.argv.slice(2);
const dd = argv.indexOf('--');
if (dd < 0 || dd === argv.length - 1) usage();
const opts = argv.slice(0, dd);
const cmd = argv.slice(dd + 1);
const quietServer = opts.includes('--quiet-server');
for (const o of opts) if (o !== '--quiet-server') usage();

// The draft 2020-12 meta-schema check. strict:false: MCP schemas may carry
// annotations Ajv does not know; the meta-schema itself is what we enforce.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

console.log(`node client: @modelcontextprotocol/sdk ${sdkVersion}, ajv ${ajvVersion}; server: ${cmd.join(' ')}`);

const tag = 'node';
const transport = new StdioClientTransport({
  command: cmd[0],
  args: cmd.slice(1),
  env: { ...process.env },
  stderr: quietServer ? 'ignore' : 'inherit',
});
let negotiated = '?';
transport.setProtocolVersion = (v) => { negotiated = v; };
const client = new Client({ name: 'appfunctions-peer-check', version: '0.0.0' });

async function main() {
  const t0 = performance.now();
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (e) {
    bad(`${tag} connect`, `${e?.name}: ${e?.message}`);
    return;
  }
  const sv = client.getServerVersion();
  ok(`${tag} connect`, `protocol ${negotiated}, server ${sv?.name} ${sv?.version ?? ''}, ${Math.round(performance.now() - t0)} ms`);
  const ro = { timeout: STEP_TIMEOUT_MS };

  // ---- tools/list with cursors ----
  const tools = [];
  let cursor;
  let pages = 0;
  try {
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, ro);
      pages++;
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && pages < 100);
  } catch (e) {
    // The SDK compiles every outputSchema here; a schema its default Ajv
    // (draft-07 mode) cannot compile makes listTools throw.
    bad(`${tag} tools/list`, `${e?.name}: ${e?.message}`);
    return;
  }
  const names = tools.map((t) => t.name);
  const missing = EXPECTED_TOOLS.filter((n) => !names.includes(n));
  check(`${tag} tools/list has the demo tools`, missing.length === 0,
    `${tools.length} tools in ${pages} page(s)`, `missing ${JSON.stringify(missing)}; got ${JSON.stringify(names)}`);
  check(`${tag} tool names unique`, new Set(names).size === names.length, '', JSON.stringify(names));
  const badNames = names.filter((n) => !TOOL_NAME_RE.test(n));
  check(`${tag} tool names follow the 2025-11-25 rule`, badNames.length === 0, '', JSON.stringify(badNames));

  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  let createdOrderId;
  for (const t of tools) {
    for (const kind of ['inputSchema', 'outputSchema']) {
      const schema = t[kind];
      const name = `${tag} ${t.name}.${kind} meta-schema 2020-12`;
      if (schema === undefined) {
        if (kind === 'inputSchema') bad(name, 'missing');
        continue;
      }
      if (!ajv.validateSchema(schema)) {
        bad(name, ajv.errorsText(ajv.errors));
        continue;
      }
      if (schema.type !== 'object') {
        bad(name, `root "type" must be "object", got ${JSON.stringify(schema.type)}`);
        continue;
      }
      ok(name);
    }
  }

  // ---- create_order: structuredContent vs outputSchema ----
  {
    const name = `${tag} create_order structuredContent matches outputSchema`;
    let res;
    try {
      res = await client.callTool({ name: 'create_order', arguments: { customer: 'Ada Lovelace', quantity: 3, priority: 'High' } }, undefined, ro);
    } catch (e) {
      // The SDK throws here when structuredContent fails the outputSchema.
      bad(name, `callTool threw ${e?.name}: ${e?.message}`);
      res = null;
    }
    if (res) {
      createdOrderId = res.structuredContent?.id;
      const outSchema = byName.create_order?.outputSchema;
      if (res.isError) bad(name, `isError: ${short(texts(res))}`);
      else if (res.structuredContent === undefined) bad(name, 'no structuredContent');
      else if (!outSchema) bad(name, 'create_order has no outputSchema');
      else {
        let validate;
        try { validate = ajv.compile(outSchema); } catch (e) { bad(name, `outputSchema does not compile: ${e.message}`); }
        if (validate) {
          const valid = validate(res.structuredContent);
          check(name, valid, short(JSON.stringify(res.structuredContent)), ajv.errorsText(validate.errors));
        }
        // other text blocks (e.g. the dialog) may follow the JSON one
        let same = false;
        for (const block of res.content ?? []) {
          try { same = same || deepEqual(JSON.parse(block.text ?? ''), res.structuredContent); } catch { /* not JSON */ }
        }
        check(`${tag} create_order text block mirrors structuredContent`, same, '', `text content was ${JSON.stringify(short(texts(res)))}`);
      }
    }
  }

  // ---- cancel_order signed out (an order that exists: the one just created) ----
  {
    const name = `${tag} cancel_order signed out -> isError with sign-in message`;
    try {
      const res = await client.callTool({ name: 'cancel_order', arguments: { order: createdOrderId ?? 'order-1' } }, undefined, ro);
      const t = texts(res);
      check(name, res.isError === true && t.includes(SIGN_IN_TEXT), short(t), `isError=${res.isError}, text=${JSON.stringify(short(t))}`);
    } catch (e) {
      bad(name, `callTool threw ${e?.name}: ${e?.message}`);
    }
  }

  // ---- unknown tool -> protocol error ----
  {
    const name = `${tag} unknown tool -> protocol error`;
    try {
      const res = await client.callTool({ name: 'no_such_tool_xyz', arguments: {} }, undefined, ro);
      bad(name, `got a result instead (isError=${res.isError}, text=${JSON.stringify(short(texts(res)))})`);
    } catch (e) {
      if (e instanceof McpError) {
        check(name, e.code === -32602, `code ${e.code}: ${short(e.message)}`, `expected -32602 (Invalid params), got ${e.code}: ${e.message}`);
      } else {
        bad(name, `non-protocol failure ${e?.name}: ${e?.message}`);
      }
    }
  }

  // ---- bad arguments -> self-correctable isError ----
  const badCases = [
    ['wrong type', { customer: 'Ada', quantity: 'lots', priority: 'High' }, 'quantity'],
    ['bad enum value', { customer: 'Ada', quantity: 1, priority: 'Urgent' }, 'priority'],
    ['missing required', { customer: 'Ada', priority: 'Low' }, 'quantity'],
  ];
  for (const [label, args, field] of badCases) {
    const name = `${tag} bad argument (${label}) -> isError naming '${field}'`;
    try {
      const res = await client.callTool({ name: 'create_order', arguments: args }, undefined, ro);
      const t = texts(res);
      check(name, res.isError === true && t.includes(field), short(t), `isError=${res.isError}, text=${JSON.stringify(short(t))}`);
    } catch (e) {
      bad(name, e instanceof McpError
        ? `callTool threw McpError ${e.code} (${short(e.message)}): a server protocol error or the SDK's own result check; since 2025-11-25 input validation failures should be tool execution errors (isError) so the model can retry`
        : `${e?.name}: ${e?.message}`);
    }
  }
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

let exitCode = 0;
try {
  await main();
} catch (e) {
  bad(`${tag} suite aborted`, `${e?.name}: ${e?.message}\n${e?.stack}`);
} finally {
  try { await client.close(); } catch { /* ignore */ }
  console.log(`${passed} passed, ${failed} failed`);
  exitCode = failed || !passed ? 1 : 0;
}
process.exit(exitCode);
