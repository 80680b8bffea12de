// e2e.mjs: `mcpctl serve` against a client not written here, the official
// TypeScript MCP SDK, over stdio and over streamable HTTP. For each
// transport: connect, list the tools, rewrite the config on disk, wait for
// notifications/tools/list_changed, list again (the new tool is there) and
// call the new tool.
//
//   cd e2e && npm ci && node e2e.mjs [PATH-TO-MCPCTL]
//
// Without a path (or $MCPCTL) it builds mcpctl with `go build` first.
// Exit status 0 means every step passed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const WAIT_MS = 20000; // a bound on event waits, never a measurement

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "mcpctl-e2e-"));

function mcpctlBinary() {
  const given = process.argv[2] || process.env.MCPCTL;
  if (given) return given;
  const out = join(work, "mcpctl");
  const r = spawnSync("go", ["build", "-o", out, "./cmd/mcpctl"], { cwd: join(here, ".."), stdio: "inherit" });
  assert.equal(r.status, 0, "go build failed");
  return out;
}

const v1 = `server: {name: e2e, version: 1.0.0}
tools:
  - name: echo
    description: Returns its arguments.
    inputSchema:
      type: object
      properties:
        message: {type: string}
      required: [message]
    outputSchema:
      type: object
      properties:
        message: {type: string}
      required: [message]
    handler:
      exec: {command: [/bin/cat]}
`;
const v2 = v1 + `  - name: greet
    description: Says hello.
    inputSchema: {type: object, properties: {name: {type: string}}}
    handler:
      static: {text: hello from generation 2}
`;

// install writes a config the way an editor does: temp file, then rename.
function install(path, content) {
  writeFileSync(path + ".tmp", content);
  renameSync(path + ".tmp", path);
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

async function exercise(name, client, config) {
  let notified = 0;
  let resolveChanged;
  const changed = new Promise((r) => (resolveChanged = r));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notified++;
    resolveChanged();
  });
  const caps = client.getServerCapabilities();
  assert.equal(caps?.tools?.listChanged, true, `${name}: tools.listChanged advertised`);

  const before = await client.listTools();
  assert.deepEqual(before.tools.map((t) => t.name), ["echo"], `${name}: first list`);
  const echoed = await client.callTool({ name: "echo", arguments: { message: "hi" } });
  assert.deepEqual(echoed.structuredContent, { message: "hi" }, `${name}: echo structuredContent`);

  install(config, v2);
  await withTimeout(changed, `${name}: notifications/tools/list_changed`);

  const after = await client.listTools();
  assert.deepEqual(after.tools.map((t) => t.name), ["echo", "greet"], `${name}: list after the change`);
  const greeted = await client.callTool({ name: "greet", arguments: {} });
  assert.equal(greeted.isError ?? false, false, `${name}: greet succeeded`);
  assert.equal(greeted.content[0].text, "hello from generation 2", `${name}: greet answered`);

  const bad = await client.callTool({ name: "echo", arguments: {} });
  assert.equal(bad.isError, true, `${name}: invalid arguments are an error result`);
  assert.match(bad.content[0].text, /\/message: missing required property/, `${name}: the error names the field`);
  assert.equal(notified, 1, `${name}: exactly one list_changed`);
  console.log(`ok   ${name}: listed, reloaded, notified once, listed again, called`);
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

async function waitReady(url) {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server never became ready at ${url}`);
}

async function stdio(mcpctl) {
  const config = join(work, "stdio.serve.yaml");
  install(config, v1);
  const transport = new StdioClientTransport({ command: mcpctl, args: ["serve", "--log-format", "json", config], stderr: "inherit" });
  const client = new Client({ name: "mcpctl-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    await exercise("stdio", client, config);
  } finally {
    await client.close();
  }
}

async function http(mcpctl) {
  const config = join(work, "http.serve.yaml");
  install(config, v1);
  const [port, admin] = [await freePort(), await freePort()];
  const server = spawn(mcpctl, ["serve", "--http", `127.0.0.1:${port}`, "--admin", `127.0.0.1:${admin}`, "--log-format", "json", config], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })));
  try {
    await waitReady(`http://127.0.0.1:${admin}/readyz`);
    const client = new Client({ name: "mcpctl-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      await exercise("http", client, config);
    } finally {
      await client.close();
    }
  } finally {
    server.kill("SIGTERM");
  }
  const { code } = await withTimeout(exited, "the server to exit after SIGTERM");
  assert.equal(code, 0, "http: the server exits 0 on SIGTERM");
  console.log("ok   http: SIGTERM, exit 0");
}

const mcpctl = mcpctlBinary();
try {
  await stdio(mcpctl);
  await http(mcpctl);
  console.log("PASS");
} catch (err) {
  console.error("FAIL", err);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
