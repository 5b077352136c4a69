// kprof mcp given what no SDK client sends: invalid JSON, a message over the 4 MiB limit, unknown
// methods, wrong argument types, and a client that closes stdin mid-call. Each is a JSON-RPC
// error or a clean exit, never a crash or a hang, and no process is left.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { EXAMPLES, expectNothingLeft, processesMentioning, rawServer, tempDir, waitFor } from './support.mjs';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

test('answers malformed input with JSON-RPC errors and keeps serving', async (t) => {
  const server = rawServer(t, tempDir(t));
  server.send(INITIALIZE);
  assert.equal((await server.next(0)).result.protocolVersion, '2025-06-18');

  server.send('{"jsonrpc": "2.0", "id": 1, "method": "ping"'); // cut short
  const parse = await server.next(null);
  assert.equal(parse.error.code, -32700);

  server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(5 << 20) } }));
  const large = await server.next(null);
  assert.equal(large.error.code, -32600);
  assert.match(large.error.message, /longer than 4194304 bytes/);

  server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/run' }));
  assert.equal((await server.next(3)).error.code, -32601);

  server.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'history', arguments: { dir: 7 } } }));
  const wrong = await server.next(4);
  assert.equal(wrong.error.code, -32602);
  assert.equal(wrong.error.message, 'dir must be a string, not an integer');

  server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'profile', arguments: { kernel_file: 'k.py', problem_file: 'p.py', gpu: 'zero' } } }));
  const option = await server.next(5);
  assert.equal(option.error.code, -32602);
  assert.equal(option.error.message, 'gpu must be an integer, not a string');
  assert.equal(option.error.data.exit_code, 2);

  server.send('[]');
  assert.equal((await server.next(null)).error.code, -32600);

  server.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
  assert.deepEqual((await server.next(6)).result, {});
  server.child.stdin.end();
  const { code, signal } = await server.exited;
  assert.equal(signal, null);
  assert.equal(code, 0, server.stderr());
});

test('exits cleanly when the client closes stdin mid-call, leaving nothing running', async (t) => {
  const dir = tempDir(t);
  const server = rawServer(t, dir);
  expectNothingLeft(t, dir);
  server.send(INITIALIZE);
  await server.next(0);
  server.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'profile',
        arguments: {
          kernel_file: path.join(EXAMPLES, 'failures', 'hangs.py'),
          problem_file: path.join(EXAMPLES, 'softmax', 'problem.py'),
          out_dir: path.join(dir, 'run'),
          timeout: 120,
        },
      },
    }),
  );
  assert.ok(await waitFor(() => processesMentioning(dir).length > 0, 20000), 'the profile never started');
  const closed = Date.now();
  server.child.stdin.end();
  const { code, signal } = await server.exited;
  assert.equal(signal, null, server.stderr());
  assert.equal(code, 0, server.stderr());
  assert.ok(Date.now() - closed < 8000, `took ${Date.now() - closed} ms`);
  assert.ok(await waitFor(() => processesMentioning(dir).length === 0, 5000), `still running: ${processesMentioning(dir)}`);
});

test('stops the running profile and exits 130 on SIGTERM, leaving nothing running', async (t) => {
  const dir = tempDir(t);
  const server = rawServer(t, dir);
  expectNothingLeft(t, dir);
  server.send(INITIALIZE);
  await server.next(0);
  server.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'profile',
        arguments: {
          kernel_file: path.join(EXAMPLES, 'failures', 'hangs.py'),
          problem_file: path.join(EXAMPLES, 'softmax', 'problem.py'),
          out_dir: path.join(dir, 'run'),
          timeout: 120,
        },
      },
    }),
  );
  assert.ok(await waitFor(() => processesMentioning(dir).length > 0, 20000), 'the profile never started');
  server.child.kill('SIGTERM');
  const { code, signal } = await server.exited;
  assert.equal(signal, null, server.stderr());
  assert.equal(code, 130, server.stderr());
  assert.match(server.stderr(), /interrupted; the profiled program was stopped/);
});
