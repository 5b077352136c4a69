// kprof mcp against the official MCP TypeScript SDK client: the tool list, the report tool on
// recorded H200 captures within the token budget, a resource read, a tool error, and a second
// client at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { CAPTURES, FIXTURES, connect, estimateTokens, tempDir, textOf } from './support.mjs';

const TOOLS = ['profile', 'batch', 'model', 'report', 'diff', 'history', 'hot_lines', 'diagnosis'];

test('lists its eight tools with input and output schemas', async (t) => {
  const { client } = await connect(t, tempDir(t));
  assert.equal(client.getServerVersion().name, 'kprof');
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), TOOLS);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.equal(tool.outputSchema.type, 'object', tool.name);
    assert.ok(tool.description.length > 40, tool.name);
  }
  const profile = tools.find((tool) => tool.name === 'profile');
  assert.deepEqual(profile.inputSchema.required, ['kernel_file', 'problem_file']);
  assert.deepEqual(profile.inputSchema.properties.cast.enum, ['none', 'auto', 'bf16', 'fp16', 'fp32']);
  assert.equal(profile.annotations.readOnlyHint, false);
});

const CASES = [
  { name: 'one kernel', args: { path: path.join(CAPTURES, 'h200_vadd.csv') }, kernels: 1, has: 'Roofline: ' },
  { name: 'two kernels', args: { path: path.join(CAPTURES, 'h200_twostage.csv') }, kernels: 2, has: 'dominant kernel: ' },
  {
    name: 'a details page with NCU findings',
    args: { path: path.join(CAPTURES, 'h200_batch4_rules.csv') },
    kernels: 5,
    // Within the budget the ranked causes come first; NCU's rules are in them (ncu:<Rule>), their
    // estimates capped by the roofline's headroom (21% for matmul_kernel, at 79% of SM peak).
    has: '[up to 21% of the time, low confidence; ncu:TheoreticalOccupancy]',
  },
  {
    name: 'a source capture with hot lines',
    args: {
      path: path.join(FIXTURES, 'source', 'softmax.raw.csv'),
      source_page: path.join(FIXTURES, 'source', 'softmax.source.csv'),
    },
    kernels: 1,
    has: 'Hot lines (share of the kernel',
  },
];

test('reports recorded H200 captures within the default token budget', async (t) => {
  const { client } = await connect(t, tempDir(t));
  for (const c of CASES) {
    const result = await client.callTool({ name: 'report', arguments: c.args });
    assert.equal(result.isError, false, `${c.name}: ${textOf(result)}`);
    const text = textOf(result);
    assert.ok(text.includes(c.has), `${c.name}: ${text}`);
    assert.ok(estimateTokens(text) <= 1500, `${c.name}: ${estimateTokens(text)} tokens`);
    assert.equal(result.structuredContent.summary.kernels.length, c.kernels, c.name);
    assert.equal(result.structuredContent.summary.gpu === null || result.structuredContent.summary.gpu === 'NVIDIA H200', true);
    const link = result.content.find((item) => item.type === 'resource_link');
    assert.equal(link.uri, result.structuredContent.report_uri, c.name);
  }
  // A smaller budget holds too, and says what it left out.
  const small = await client.callTool({ name: 'report', arguments: { ...CASES[2].args, token_budget: 300 } });
  assert.ok(estimateTokens(textOf(small)) <= 300, textOf(small));
  assert.match(textOf(small), /cut to the token budget of 300/);
});

test('reads the whole report document as a resource', async (t) => {
  const { client } = await connect(t, tempDir(t));
  const result = await client.callTool({ name: 'report', arguments: CASES[1].args });
  const uri = result.structuredContent.report_uri;
  const { resources } = await client.listResources();
  assert.ok(resources.some((resource) => resource.uri === uri), JSON.stringify(resources));
  const read = await client.readResource({ uri });
  const doc = JSON.parse(read.contents[0].text);
  assert.equal(doc.schema_version, 4);
  assert.equal(doc.summary.dominant_kernel, result.structuredContent.summary.dominant_kernel);
  assert.equal(doc.kernels.length, 2);
});

test('answers a missing file with a tool error naming its category and exit code', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir);
  const missing = path.join(dir, 'no-such-capture.csv');
  const result = await client.callTool({ name: 'report', arguments: { path: missing } });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.error.category, 'input_not_found');
  assert.equal(result.structuredContent.error.exit_code, 3);
  assert.ok(textOf(result).includes(missing), textOf(result));
  // The server goes on.
  await client.ping();
});

test('serves a second client at once', async (t) => {
  const [first, second] = await Promise.all([connect(t, tempDir(t)), connect(t, tempDir(t))]);
  const [a, b] = await Promise.all([
    first.client.callTool({ name: 'report', arguments: CASES[0].args }),
    second.client.callTool({ name: 'report', arguments: CASES[1].args }),
  ]);
  assert.equal(a.structuredContent.summary.kernels.length, 1);
  assert.equal(b.structuredContent.summary.kernels.length, 2);
  assert.notEqual(first.pid, second.pid);
});

test('answers a call that runs out of memory with an out_of_memory tool error and serves the next', async (t) => {
  const dir = tempDir(t);
  // 8,000 launches of a `--set full` capture (128 MB) read with every column (metrics "all"):
  // about 800 MB of cells, against a server limited to 128 MiB of address space (2,000 launches
  // ran out on one machine and not on another: too near the limit).
  const lines = fs.readFileSync(path.join(FIXTURES, 'set_full_vadd.csv'), 'utf8').split('\n');
  const row = lines.findIndex((line) => line.startsWith('"0",'));
  const big = path.join(dir, 'big.csv');
  const fd = fs.openSync(big, 'w');
  fs.writeSync(fd, lines.slice(0, row).join('\n') + '\n');
  const rest = lines[row].slice(3);
  for (let id = 0; id < 8000; id += 1) {
    fs.writeSync(fd, `"${id}"${rest}\n`);
  }
  fs.closeSync(fd);
  const { client } = await connect(t, dir, { memoryLimitKb: 128 * 1024 });
  const result = await client.callTool({ name: 'report', arguments: { path: big, metrics: 'all' } });
  assert.equal(result.isError, true, textOf(result));
  assert.equal(result.structuredContent.error.category, 'out_of_memory', textOf(result));
  assert.equal(result.structuredContent.error.exit_code, 19);
  assert.match(textOf(result), /the report call: out of memory: an allocation failed/);
  // Its memory is free again and the server answers the next call.
  const next = await client.callTool({ name: 'report', arguments: CASES[0].args });
  assert.equal(next.isError, false, textOf(next));
  assert.equal(next.structuredContent.summary.kernels.length, 1);
});

test('answers sixteen report calls sent at once, two reading at a time', async (t) => {
  const { client } = await connect(t, tempDir(t), { args: ['--read-slots', '2'] });
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, i) => client.callTool({ name: 'report', arguments: CASES[i % 2].args })),
  );
  results.forEach((result, i) => {
    assert.equal(result.isError, false, textOf(result));
    assert.equal(result.structuredContent.summary.kernels.length, CASES[i % 2].kernels);
  });
});
