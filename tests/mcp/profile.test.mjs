// kprof mcp's profile and batch tools with the stand-in ncu and the fake torch: a good kernel (and
// the standby that answers the next round), one that raises, one that hangs past its timeout,
// one cancelled mid-run; then diff and history of the run directory. Nothing may be left running.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
  EXAMPLES,
  ROOT,
  connect,
  estimateTokens,
  expectNothingLeft,
  processesMentioning,
  tempDir,
  textOf,
  waitFor,
} from './support.mjs';

const VADD = {
  kernel_file: path.join(EXAMPLES, 'vadd', 'kernel.py'),
  problem_file: path.join(EXAMPLES, 'vadd', 'problem.py'),
};
const RAISES = path.join(EXAMPLES, 'failures', 'raises.py');
const HANGS = path.join(EXAMPLES, 'failures', 'hangs.py');
const ONE_INPUT = path.join(EXAMPLES, 'softmax', 'problem.py'); // the failures take one input

test('profiles a good kernel, then answers the next round from its standby, then diffs them', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir);
  expectNothingLeft(t, dir);
  const out = path.join(dir, 'run');
  const progress = [];
  const first = await client.callTool(
    { name: 'profile', arguments: { ...VADD, out_dir: out, round: 1 } },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  assert.equal(first.isError, false, textOf(first));
  const text = textOf(first);
  assert.match(text, /## Kernel: add_kernel/);
  assert.match(text, /Roofline: /);
  assert.ok(estimateTokens(text) <= 1500);
  const candidate = first.structuredContent.candidates[0];
  assert.equal(candidate.status, 'ok');
  assert.equal(candidate.summary.dominant_kernel, 'add_kernel');
  assert.ok(fs.existsSync(path.join(out, 'round001', 'report.json')));
  assert.ok(progress.length >= 2, JSON.stringify(progress));
  assert.match(progress[0].message, /profiling 1 candidate of problem.py/);
  assert.ok(progress.some((p) => /cand0 ok/.test(p.message)), JSON.stringify(progress));

  // The round's .ncu-rep, read back through (the stand-in) ncu --import.
  const rep = await client.callTool({ name: 'report', arguments: { path: path.join(out, 'round001', 'report.ncu-rep') } });
  assert.equal(rep.isError, false, textOf(rep));
  assert.equal(rep.structuredContent.summary.dominant_kernel, 'add_kernel');

  const second = await client.callTool({ name: 'profile', arguments: { ...VADD, out_dir: out, round: 2 } });
  assert.equal(second.isError, false, textOf(second));
  assert.equal(second.structuredContent.candidates[0].standby, true, 'round 2 ran on the standby');

  const history = await client.callTool({ name: 'history', arguments: { dir: out } });
  assert.equal(history.isError, false, textOf(history));
  assert.equal(history.structuredContent.rows_total, 2);
  assert.equal(typeof history.structuredContent.convergence.converged, 'boolean');
  assert.match(textOf(history), /converged: /);

  const diff = await client.callTool({ name: 'diff', arguments: { dir: out, a: 1, b: '2' } });
  assert.equal(diff.isError, false, textOf(diff));
  assert.equal(diff.structuredContent.diff.kind, 'diff');
  assert.match(textOf(diff), /round 2 vs round 1/);
  assert.equal(typeof diff.structuredContent.convergence.converged, 'boolean');

  const hot = await client.callTool({ name: 'hot_lines', arguments: { dir: out, round: 1 } });
  assert.equal(hot.structuredContent.available, false);
  assert.match(textOf(hot), /has no hot lines/);
  const diagnosis = await client.callTool({ name: 'diagnosis', arguments: { dir: out, round: '2' } });
  assert.equal(diagnosis.structuredContent.available, true, textOf(diagnosis));
  const causes = diagnosis.structuredContent.kernels[0].diagnosis;
  assert.ok(causes.length > 0);
  assert.ok(textOf(diagnosis).includes(`1. ${causes[0].title}`), textOf(diagnosis));

  // The round directory and its report are resources now.
  const { resources } = await client.listResources();
  const report = resources.find((r) => r.uri.endsWith('/round002/report.json'));
  assert.ok(report, JSON.stringify(resources.map((r) => r.uri)));
  const read = await client.readResource({ uri: report.uri });
  assert.equal(JSON.parse(read.contents[0].text).metadata.round, 2);
});

test('says a kernel raised, with its category, exit code and the traceback tail', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir);
  expectNothingLeft(t, dir);
  const result = await client.callTool({
    name: 'profile',
    arguments: { kernel_file: RAISES, problem_file: ONE_INPUT, out_dir: path.join(dir, 'run'), retries: 0 },
  });
  assert.equal(result.isError, true);
  const candidate = result.structuredContent.candidates[0];
  assert.equal(candidate.status, 'failed');
  assert.equal(candidate.error.category, 'kernel_raised');
  assert.equal(candidate.error.exit_code, 10);
  assert.match(textOf(result), /planted failure: this candidate computes nothing/);
  assert.match(textOf(result), /category kernel_raised, exit code 10/);
});

test('stops a kernel that hangs past its timeout and leaves nothing running', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir, { args: ['--no-standby'] });
  expectNothingLeft(t, dir);
  const result = await client.callTool({
    name: 'profile',
    arguments: { kernel_file: HANGS, problem_file: ONE_INPUT, out_dir: path.join(dir, 'run'), timeout: 1, retries: 0 },
  });
  assert.equal(result.isError, true, textOf(result));
  assert.equal(result.structuredContent.candidates[0].error.category, 'timeout');
  assert.equal(result.structuredContent.candidates[0].error.exit_code, 12);
  assert.ok(await waitFor(() => processesMentioning(dir).length === 0, 5000), 'the hung kernel still runs');
});

test('stops the run when the client cancels mid-run, and profiles again afterwards', async (t) => {
  const dir = tempDir(t);
  const { client, stderr } = await connect(t, dir);
  expectNothingLeft(t, dir);
  const out = path.join(dir, 'run');
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'profile', arguments: { kernel_file: HANGS, problem_file: ONE_INPUT, out_dir: out, timeout: 120 } },
    undefined,
    { signal: controller.signal, onprogress: () => {} },
  );
  // Cancel once the harness runs under the stand-in ncu.
  assert.ok(await waitFor(() => processesMentioning(out).length > 0, 20000), 'the profile never started');
  await client.ping(); // read and answered while the profile runs
  const started = Date.now();
  controller.abort('the test cancels');
  await assert.rejects(call);
  assert.ok(await waitFor(() => processesMentioning(out).length === 0, 8000), `still running: ${processesMentioning(out)}`);
  assert.ok(Date.now() - started < 8000);
  assert.match(stderr.join(''), /profile \(id \d+\): cancelled by the client/);
  // The cancellation ended with the call: the next profile runs.
  const again = await client.callTool({ name: 'profile', arguments: { ...VADD, out_dir: out, round: 3 } });
  assert.equal(again.isError, false, textOf(again));
});

test('ranks a batch and says which candidate failed and why', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir);
  expectNothingLeft(t, dir);
  const result = await client.callTool({
    name: 'batch',
    arguments: {
      problem_file: VADD.problem_file,
      kernel_files: [VADD.kernel_file, RAISES],
      out_dir: path.join(dir, 'run'),
      retries: 0,
    },
  });
  assert.equal(result.isError, false, textOf(result));
  const [best, failed] = result.structuredContent.candidates;
  assert.equal(best.rank, 1);
  assert.equal(best.status, 'ok');
  assert.equal(best.candidate, 0);
  assert.equal(failed.rank, null);
  assert.equal(failed.error.category, 'kernel_raised');
  const text = textOf(result);
  assert.match(text, /^round 0: 2 candidates in /);
  assert.match(text, /### cand1 \(raises\.py, failed\)/);
  assert.ok(estimateTokens(text) <= 2 * 1500);
});

test('the model tool ranks a model\'s kernels by their share of its call', async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir, { env: { KPROF_FAKE_STEPS: '100' } });
  expectNothingLeft(t, dir);
  const out = path.join(dir, 'run');
  const problem = path.join(ROOT, 'tests', 'python', 'cases', 'model', 'problem.py');
  const result = await client.callTool({ name: 'model', arguments: { problem_file: problem, out_dir: out, round: 1 } });
  assert.equal(result.isError, false, textOf(result));
  assert.match(textOf(result), /Optimize first, by share of the call's kernel time: gemv_kernel \(59%\)/);
  assert.ok(fs.existsSync(path.join(out, 'model', 'kernel.py')));
  const report = JSON.parse(fs.readFileSync(path.join(out, 'round001', 'report.json'), 'utf8'));
  assert.equal(report.workload.launches, 201);
  assert.equal(report.truth.check, null); // the candidate is the reference: no check by default
  await assert.rejects( // the schema's boolean, checked before the tool runs
    client.callTool({ name: 'model', arguments: { problem_file: problem, out_dir: out, round: 2, compile: 'yes' } }),
    /compile must be a boolean/,
  );
  const missing = await client.callTool({ name: 'model', arguments: { problem_file: path.join(dir, 'absent.py'), out_dir: out } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /absent\.py not found/);
  // extract_dir (kprof model --extract): the costliest Triton kernels as cases, said in the text.
  const cases = path.join(dir, 'cases');
  const extracted = await client.callTool({
    name: 'model', arguments: { problem_file: problem, out_dir: out, round: 3, extract_dir: cases, extract_top: 1 },
  });
  assert.equal(extracted.isError, false, textOf(extracted));
  assert.match(textOf(extracted), /## Extracted\n- extracted gemv_kernel \(\d+% of the call.s kernel time\): kprof profile .*gemv_kernel\/kernel\.py .*gemv_kernel\/problem\.py/);
  assert.equal(extracted.structuredContent.extracted.kernels[0].extracted, true);
  assert.ok(fs.existsSync(path.join(cases, 'gemv_kernel', 'problem.py')));
});
