// What the kprof mcp tests share: the built kprof, the stand-in ncu and fake torch environment
// the Python tests use (tests/python/test_api.py, fake_gpu), a connected MCP SDK client, and the
// check that nothing kprof started is left running.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD_DIR = process.env.KPROF_BUILD_DIR
  ? path.resolve(process.env.KPROF_BUILD_DIR)
  : path.join(ROOT, 'build');
export const KPROF = path.join(BUILD_DIR, 'kprof');
export const STANDINS = path.join(ROOT, 'tests', 'standins');
export const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'ncu', '2025.3.1');
export const CAPTURES = path.join(ROOT, 'examples', 'captures');
export const EXAMPLES = path.join(ROOT, 'examples');

/// kprof's token estimate (docs/mcp.md): one token per 3 bytes of UTF-8, rounded up.
export function estimateTokens(text) {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/// What ends a test, in this order: its clients close (the servers exit), the checks run, its
/// directories go. One hook per test, whatever order the helpers were called in.
const endings = new WeakMap();
function ending(t) {
  if (!endings.has(t)) {
    const steps = { closers: [], checks: [], dirs: [] };
    endings.set(t, steps);
    t.after(async () => {
      for (const close of steps.closers) {
        await close();
      }
      for (const check of steps.checks) {
        await check();
      }
      for (const dir of steps.dirs) {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  return endings.get(t);
}

/// A fresh directory for one test; its path names every process the test starts.
export function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kprof-mcp-'));
  ending(t).dirs.push(dir);
  return dir;
}

/// Once the test's clients are closed, no process may mention `dir` (within 10 s).
export function expectNothingLeft(t, dir) {
  ending(t).checks.push(async () => {
    const gone = await waitFor(() => processesMentioning(dir).length === 0, 10000);
    if (!gone) {
      throw new Error(`still running after the client closed: ${processesMentioning(dir)}`);
    }
  });
}

/// The environment of the stand-in ncu: it replays batch4_flat_regex_ranges.csv (candidate 0 is
/// add_kernel), the harness imports the fake torch, GPU locks live in the test's directory.
export function fakeGpuEnv(dir, extra = {}) {
  const env = { ...process.env };
  delete env.KPROF_FAKE_NCU_SCENARIO;
  delete env.KPROF_NCU_USE_SUDO;
  return {
    ...env,
    PYTHONPATH: [path.join(STANDINS, 'fake_torch'), process.env.PYTHONPATH].filter(Boolean).join(':'),
    KPROF_NCU: path.join(STANDINS, 'ncu'),
    KPROF_FAKE_NCU_CSV: path.join(FIXTURES, 'batch4_flat_regex_ranges.csv'),
    KPROF_LOCK_DIR: path.join(dir, 'locks'),
    TRITON_CACHE_DIR: path.join(dir, 'triton'),
    ...(fs.existsSync('/usr/bin/python3') ? { KPROF_PYTHON: '/usr/bin/python3' } : {}),
    NO_COLOR: '1',
    ...extra,
  };
}

/// An MCP SDK client connected to `kprof mcp` over stdio; closed (and the server gone) when the
/// test ends. `stderr` collects what the server logged. With `memoryLimitKb` the server runs
/// under `ulimit -v` of that many KiB (its allocations beyond it fail).
export async function connect(t, dir, { env = {}, args = [], memoryLimitKb = 0 } = {}) {
  const command = memoryLimitKb > 0 ? '/bin/sh' : KPROF;
  const limited = ['-c', `ulimit -v ${memoryLimitKb} && exec "$0" "$@"`, KPROF];
  const transport = new StdioClientTransport({
    command,
    args: [...(memoryLimitKb > 0 ? limited : []), 'mcp', ...args],
    env: fakeGpuEnv(dir, env),
    cwd: dir,
    stderr: 'pipe',
  });
  const stderr = [];
  transport.stderr.on('data', (chunk) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'kprof-node-test', version: '1.0.0' });
  await client.connect(transport);
  const session = { client, transport, stderr, pid: transport.pid };
  ending(t).closers.push(() => client.close());
  return session;
}

/// The text of a tool result's first content block.
export function textOf(result) {
  return result.content[0].text;
}

/// Pids of the processes whose command line mentions `needle` (the test's directory).
export function processesMentioning(needle) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      const cmdline = fs.readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8');
      const stat = fs.readFileSync(path.join('/proc', entry, 'stat'), 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(needle) && state !== 'Z') {
        pids.push(Number(entry));
      }
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

/// Waits until `check()` is true, at most `ms`; returns its last value.
export async function waitFor(check, ms = 10000) {
  const deadline = Date.now() + ms;
  let value = check();
  while (!value && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = check();
  }
  return value;
}

/// `kprof mcp` as a raw child process for the malformed-input tests: lines in, parsed lines out.
export function rawServer(t, dir) {
  const child = spawn(KPROF, ['mcp'], { cwd: dir, env: fakeGpuEnv(dir), stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(JSON.parse(line)); // a line that is not JSON fails the test
      waiters.splice(0).forEach((wake) => wake());
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk.toString();
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  ending(t).closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    child,
    exited,
    stderr: () => stderr,
    send(text) {
      child.stdin.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    /// The next line whose id is `id` (or, for id undefined, the next line).
    async next(id, ms = 15000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const index = lines.findIndex((line) => id === undefined || line.id === id);
        if (index >= 0) {
          return lines.splice(index, 1)[0];
        }
        if (Date.now() > deadline) {
          throw new Error(`no answer with id ${id}; stderr: ${stderr}`);
        }
        await new Promise((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}
