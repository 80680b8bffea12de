// gateway.mjs: the official TypeScript MCP SDK client through `mcpctl serve`
// fronting upstreams (docs/gateway.md), over streamable HTTP:
//
//   1. a safe upstream change (a tool added)   -> published, one list_changed
//   2. a breaking one (echo's message renamed) -> quarantined: the old list
//      stays, the old call still works (translated by the rename the diff
//      verified, gate.upstream: auto-facade), /status lists it pending,
//      nobody is notified
//   3. approved (POST /approve)                -> published, one list_changed
//   4. progress relayed: server-everything's longRunningOperation and the
//      mutable upstream's count
//
// The upstreams are internal/upstreamtest/cmd/mutableupstream (changed
// through its control file) and @modelcontextprotocol/server-everything
// from node_modules.
//
//   cd e2e && npm ci && node gateway.mjs [PATH-TO-MCPCTL]
//
// Without a path (or $MCPCTL) it builds mcpctl with `go build` first.
// Exit status 0 means every step passed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const WAIT_MS = 20000; // a bound on event waits, never a measurement

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = mkdtempSync(join(tmpdir(), "mcpctl-gateway-e2e-"));

function build(pkg, out, given) {
  if (given) return given;
  const r = spawnSync("go", ["build", "-o", out, pkg], { cwd: root, stdio: "inherit" });
  assert.equal(r.status, 0, `go build ${pkg} failed`);
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls cond (async) until it returns a truthy value.
async function until(what, cond) {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const v = await cond().catch(() => undefined);
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// change appends one change to the mutable upstream's control file
// (upstreamtest.Change as a JSON line).
function change(control, c) {
  appendFileSync(control, JSON.stringify(c) + "\n");
}

function props(list, tool) {
  return Object.keys(list.tools.find((t) => t.name === tool)?.inputSchema?.properties ?? {}).sort();
}

async function main() {
  const mcpctl = build("./cmd/mcpctl", join(work, "mcpctl"), process.argv[2] || process.env.MCPCTL);
  const mutable = build("./internal/upstreamtest/cmd/mutableupstream", join(work, "mutableupstream"));
  const control = join(work, "control.jsonl");
  writeFileSync(control, "");
  const everything = join(here, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const config = join(work, "gateway.serve.yaml");
  writeFileSync(config, `server: {name: gateway-e2e, version: 1.0.0}
upstreams:
  - name: m
    stdio: [${JSON.stringify(mutable)}, -control, ${JSON.stringify(control)}]
  - name: everything
    stdio: [node, ${JSON.stringify(everything)}, stdio]
    prefix: ev_
    tools: {include: [echo, add, longRunningOperation]}
gate: {upstream: auto-facade}
`);
  const stateDir = join(work, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  const [port, admin] = [await freePort(), await freePort()];
  const server = spawn(mcpctl, ["serve", "--http", `127.0.0.1:${port}`, "--admin", `127.0.0.1:${admin}`, "--state", stateDir, "--log-format", "json", config], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise((resolve) => server.on("exit", (code) => resolve(code)));
  const status = async () => (await fetch(`http://127.0.0.1:${admin}/status`)).json();
  try {
    await until("the gateway to be ready", async () => (await fetch(`http://127.0.0.1:${admin}/readyz`)).ok);
    const client = new Client({ name: "mcpctl-gateway-e2e", version: "1.0.0" });
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified++);
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      await scenarios(client, control, status, admin, () => notified);
    } finally {
      await client.close();
    }
  } finally {
    server.kill("SIGTERM");
    var code = await withTimeout(exited, "the gateway to exit after SIGTERM");
  }
  assert.equal(code, 0, "the gateway exits 0 on SIGTERM");
}

async function scenarios(client, control, status, admin, notified) {
  const first = await client.listTools();
  const names = first.tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["count", "echo", "ev_add", "ev_echo", "ev_longRunningOperation", "slow"], "first list");
  const echoed = await client.callTool({ name: "echo", arguments: { message: "hi" } });
  assert.deepEqual(echoed.structuredContent, { message: "hi" }, "echo through the gateway");
  console.log("ok   listed both upstreams, called through the gateway");

  // 1. safe: a tool added upstream.
  let n = notified();
  change(control, { op: "add", def: { name: "fresh", inputSchema: { type: "object" } } });
  await until("list_changed after a safe change", async () => notified() > n);
  const safe = await client.listTools();
  assert.ok(safe.tools.some((t) => t.name === "fresh"), "the added tool is listed");
  await sleep(300);
  assert.equal(notified() - n, 1, "exactly one list_changed for a safe change");
  console.log("ok   safe upstream change: published, one list_changed");

  // 2. breaking: echo's required message renamed to text upstream.
  n = notified();
  change(control, { op: "rename", tool: "echo", old: "message", new: "text" });
  const pending = await until("a pending candidate", async () => (await status()).pending?.[0]);
  assert.ok(pending.fingerprint, "the quarantine is a pending candidate");
  const held = await client.listTools();
  assert.deepEqual(props(held, "echo"), ["message", "mode"], "the accepted contract stays advertised");
  const old = await client.callTool({ name: "echo", arguments: { message: "old shape" } });
  assert.equal(old.isError ?? false, false, "the old call still works");
  assert.deepEqual(old.structuredContent, { text: "old shape" }, "translated to the upstream's new shape");
  assert.equal(notified() - n, 0, "nobody is notified of a quarantined change");
  console.log("ok   breaking upstream change: quarantined, old call translated, pending in /status");

  // 3. approve: published.
  const r = await fetch(`http://127.0.0.1:${admin}/approve`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ fingerprint: pending.fingerprint, reason: "e2e: the rename is intended" }),
  });
  assert.equal(r.status, 200, `approve: ${await r.text()}`);
  await until("list_changed after the approval", async () => notified() > n);
  const approved = await client.listTools();
  assert.deepEqual(props(approved, "echo"), ["mode", "text"], "the approved contract is advertised");
  console.log("ok   approved: published, list_changed");

  // 4. progress relayed under the client's token (the SDK routes a
  // notification to onprogress by it), as the upstream sent it:
  // server-everything's longRunningOperation (one per 100 ms step) and the
  // mutable upstream's count (all three right before its result). Over
  // streamable HTTP a notification the gateway relays after it has written
  // the result is lost (0 to 3 of count's arrive; the Go gateway tests
  // count them in memory), so count's are printed, not required, and the
  // last of longRunningOperation's is not required either.
  for (const [name, args, least] of [["ev_longRunningOperation", { duration: 0.3, steps: 3 }, 2], ["count", { n: 1 }, 0]]) {
    const seen = [];
    const res = await client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => seen.push(p) });
    assert.equal(res.isError ?? false, false, `${name} succeeded`);
    assert.deepEqual(seen.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]].slice(0, seen.length), `${name}: progress as the upstream sent it`);
    assert.ok(seen.length >= least, `${name}: ${seen.length} of 3 progress notifications before the result, want at least ${least}`);
    console.log(`     ${name}: ${seen.length} of 3 progress notifications before the result`);
  }
  console.log("ok   progress relayed");
}

try {
  await main();
  console.log("PASS");
} catch (err) {
  console.error("FAIL", err);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
