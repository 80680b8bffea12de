// peers.mjs: the work of run.sh. For every diff case in cases.json and
// every tool present on both sides, write the input-schema pair (and the
// output-schema pair when either side has one) as files; ask
// json-schema-diff (its node API, for the added/removed verdict) and
// mcpctl diff --format json (on one-tool sets holding just that schema)
// for a verdict; time both as whole processes (the json-schema-diff CLI,
// mcpctl diff) and print a Markdown table.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const runs = Number(args.runs || 5);
const require = createRequire(import.meta.url);
const jsd = require(args['jsd-api']);
// ajv comes with json-schema-diff; it checks mcpctl's witnesses
// independently of mcpctl's own validator.
const Ajv = require(join(args['jsd-api'], '..', 'ajv'));
const ajv = new Ajv({ strict: false, allErrors: false });

const cases = JSON.parse(readFileSync(args.cases, 'utf8')).filter((c) => c.kind === 'diff');
const dir = join(args.work, 'pairs');
mkdirSync(dir, { recursive: true });

// One row per schema pair.
const rows = [];
for (const c of cases) {
  const byName = (list) => new Map(list.map((t) => [t.name, t]));
  const oldTools = byName(c.old);
  const newTools = byName(c.new);
  let paired = false;
  for (const [name, ot] of oldTools) {
    const nt = newTools.get(name);
    if (!nt) continue;
    paired = true;
    for (const dirn of ['input', 'output']) {
      const key = dirn === 'input' ? 'inputSchema' : 'outputSchema';
      if (dirn === 'output' && !ot[key] && !nt[key]) continue;
      const base = join(dir, `${c.id}.${name}.${dirn}`);
      const files = {
        oldSchema: `${base}.old.schema.json`,
        newSchema: `${base}.new.schema.json`,
        oldSet: `${base}.old.tools.json`,
        newSet: `${base}.new.tools.json`,
      };
      // json-schema-diff reads a schema; an absent one is "anything" ({}).
      writeFileSync(files.oldSchema, JSON.stringify(ot[key] ?? {}));
      writeFileSync(files.newSchema, JSON.stringify(nt[key] ?? {}));
      // mcpctl reads a tool set; keep only the schema being compared so
      // both tools see the same input.
      const tool = (t) => {
        const out = { name, inputSchema: dirn === 'input' ? t.inputSchema : { type: 'object' } };
        if (dirn === 'output' && t.outputSchema) out.outputSchema = t.outputSchema;
        return out;
      };
      writeFileSync(files.oldSet, JSON.stringify({ tools: [tool(ot)] }));
      writeFileSync(files.newSet, JSON.stringify({ tools: [tool(nt)] }));
      rows.push({ id: c.id, expect: c.expect.level, tool: name, dirn, files, schemas: [ot[key] ?? {}, nt[key] ?? {}] });
    }
  }
  // A tool removed, added or renamed is invisible to a schema comparison:
  // run mcpctl on the whole case too.
  const sameNames = oldTools.size === newTools.size && [...oldTools.keys()].every((k) => newTools.has(k));
  if (!paired || !sameNames) {
    const base = join(dir, `${c.id}.whole`);
    const files = { oldSet: `${base}.old.tools.json`, newSet: `${base}.new.tools.json` };
    writeFileSync(files.oldSet, JSON.stringify({ tools: c.old }));
    writeFileSync(files.newSet, JSON.stringify({ tools: c.new }));
    rows.push({ id: c.id, expect: c.expect.level, tool: '(whole case)', dirn: '-', files, whole: true, tools: [c.old, c.new] });
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(cmd, argv) {
  const ms = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    last = spawnSync(cmd, argv, { encoding: 'utf8' });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (last.error) throw last.error;
  }
  return { ms: median(ms), out: last };
}

const jsdLevel = (r, dirn) => {
  if (r.error) return 'error';
  // Input: values the new schema no longer accepts (removed) break old
  // calls. Output: values the new schema newly allows (added) break
  // clients.
  const breaking = dirn === 'input' ? r.removalsFound : r.additionsFound;
  const widening = dirn === 'input' ? r.additionsFound : r.removalsFound;
  return breaking ? 'breaking' : widening ? 'safe' : 'none';
};

// checkWitness validates a witness with ajv: an input witness must be
// accepted by the old schema and rejected by the new one, an output witness
// the other way round. Returns "ok", "FAIL" or "-" (not checkable here).
function checkWitness(row, ch) {
  if (ch.witness == null || row.whole || ch.direction !== row.dirn) return '-';
  try {
    const [o, n] = row.schemas;
    const okOld = ajv.validate(o, ch.witness);
    const okNew = ajv.validate(n, ch.witness);
    const good = row.dirn === 'input' ? okOld && !okNew : okNew && !okOld;
    return good ? 'ok' : 'FAIL';
  } catch {
    return '-';
  }
}

let jsdTotal = 0;
let jsdAPITotal = 0;
let mcpTotal = 0;
const lines = [
  '| case | tool | dir | case expects | json-schema-diff | jsd level | mcpctl level | mcpctl findings (witness, ajv check) | agree | jsd ms | jsd API ms | mcpctl ms |',
  '|---|---|---|---|---|---|---|---|---|---:|---:|---:|',
];
for (const row of rows) {
  const mt = time(args.mcpctl, ['diff', '--format', 'json', '--fail-on', 'never', row.files.oldSet, row.files.newSet]);
  let mlevel = 'error';
  let mrules = mt.out.stderr.trim().split('\n')[0];
  try {
    const rep = JSON.parse(mt.out.stdout);
    mlevel = rep.level;
    mrules = rep.changes
      .map((ch) => {
        if (ch.witness == null) return ch.rule;
        return `${ch.rule} ${JSON.stringify(ch.witness)} (${checkWitness(row, ch)})`;
      })
      .join('; ');
  } catch {
    // keep the stderr line
  }
  if (row.whole) {
    lines.push(`| ${row.id} | ${row.tool} | - | ${row.expect} | n/a: tools differ, no schema pair | n/a | ${mlevel} | ${mrules.replaceAll('|', '\\|')} | n/a | | | ${mt.ms.toFixed(1)} |`);
    continue;
  }
  mcpTotal += mt.ms;
  let verdict;
  const apiMs = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    try {
      const r = await jsd.diffSchemas({ sourceSchema: row.schemas[0], destinationSchema: row.schemas[1] });
      verdict = { additionsFound: r.additionsFound, removalsFound: r.removalsFound };
    } catch (e) {
      verdict = { error: String(e.message || e).split('\n')[0] };
    }
    apiMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const jt = time(args.jsd, [row.files.oldSchema, row.files.newSchema]);
  jsdTotal += jt.ms;
  jsdAPITotal += median(apiMs);
  const jtext = verdict.error
    ? `error: ${verdict.error}`
    : [verdict.additionsFound && 'added', verdict.removalsFound && 'removed'].filter(Boolean).join('+') || 'no differences';
  const jl = jsdLevel(verdict, row.dirn);
  // mcpctl's facade level is "breaking unless translated": compare it as breaking.
  const agree = (mlevel === 'facade' ? 'breaking' : mlevel) === jl ? 'yes' : '**no**';
  lines.push(
    `| ${row.id} | ${row.tool} | ${row.dirn} | ${row.expect} | ${jtext} | ${jl} | ${mlevel} | ${mrules.replaceAll('|', '\\|')} | ${agree} | ${jt.ms.toFixed(1)} | ${median(apiMs).toFixed(2)} | ${mt.ms.toFixed(1)} |`,
  );
}
console.log(lines.join('\n'));
console.log();
const paired = rows.filter((r) => !r.whole).length;
console.log(`runs per pair: ${runs} (median); schema pairs timed: ${paired}`);
console.log(`whole process, total of medians: json-schema-diff CLI ${jsdTotal.toFixed(1)} ms, mcpctl diff ${mcpTotal.toFixed(1)} ms; ratio json-schema-diff/mcpctl: ${(jsdTotal / mcpTotal).toFixed(2)}`);
console.log(`json-schema-diff node API in process (no start-up), total of medians: ${jsdAPITotal.toFixed(1)} ms`);
