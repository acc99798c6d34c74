/**
 * The lambda-web target's parts (issue 49): the Web Function's file (the server's, its probe listening on
 * AWS_LAMBDA_HTTP_ENDPOINT), its environment, its cells (no memory size, nodejs24.x), and readiness as
 * Lambda sees it: the address accepting a connection, not the server's own ready line. No process is started:
 * the "server" is a net.Server of this process, the child's ready line a fake.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { fileHeader, HTTP_ENDPOINT_ENV, PROBE, webFunctionSource } from '../../generators/probe.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { cellsOf } from '../../metrics/core/cell-space.ts';
import { freePort } from '../../metrics/measure/app-answer.ts';
import { endpointReadiness, limitReason, webEnvironment, wrongPortReason } from '../../metrics/measure/targets/lambda-web.ts';
import { SampleFailure, type SampleIO } from '../../metrics/measure/targets/target.ts';
import { PROTOCOL_PREFIX } from '../../generators/probe.ts';

test("a Web Function's file is the server's with only the probe's address lines changed", async () => {
  const server = (await loadGenerators('server')).find((g) => g.name === 'express')!;
  const web = (await loadGenerators('lambda-web')).find((g) => g.name === 'express')!;
  assert.equal(web.target, 'lambda-web');
  const input = { routes: 3, variant: 'validated' as const };
  const [plain, rewritten] = [await server.generate(input), await web.generate(input)];
  assert.ok(plain.includes(PROBE), 'the server file keeps the probe (its published bytes)');
  assert.ok(!plain.includes(HTTP_ENDPOINT_ENV));
  assert.ok(rewritten.includes(`process.env.${HTTP_ENDPOINT_ENV}`));
  // everything but the address lines is the same text
  const strip = (text: string) => text.replace(/const __csHost[^\n]*\n|const __csPort[^\n]*\n/g, '');
  const added = strip(rewritten).length - strip(plain).length;
  assert.ok(added > 0 && added < 800, `${added} characters added`);
  assert.throws(() => webFunctionSource('no probe here'), /without exactly one probe address/);
  assert.throws(() => webFunctionSource(fileHeader('x', 'plain', 1) + fileHeader('x', 'plain', 1)), /exactly one/);
});

test("the Web Function's probe listens on the endpoint when it is set, else on PORT, and refuses a malformed one", () => {
  const source = webFunctionSource(fileHeader('x', 'plain', 1));
  const address = (env: Record<string, string | undefined>) => {
    const exits: number[] = [];
    const fake = {
      env,
      stderr: { write: () => true },
      exit: (code: number) => exits.push(code),
      on: () => undefined,
      cpuUsage: () => ({ user: 0, system: 0 }),
    };
    const body = `(function () {${source.replace("'use strict';", '')}\nreturn [__csHost, __csPort];\n})()`;
    const [host, port] = runInNewContext(body, { process: fake, performance }) as [string, number];
    return exits.length ? `exit ${exits[0]}` : `${host}:${port}`;
  };
  assert.equal(address({ [HTTP_ENDPOINT_ENV]: '127.0.0.1:9001' }), '127.0.0.1:9001');
  assert.equal(address({ [HTTP_ENDPOINT_ENV]: '[::1]:8080' }), '::1:8080');
  assert.equal(address({ PORT: '3000' }), '127.0.0.1:3000');
  assert.equal(address({ [HTTP_ENDPOINT_ENV]: 'localhost' }), 'exit 1');
});

test("a Web Function's environment: the endpoint and Lambda's names, no PORT, no Runtime API, no handler", () => {
  const env = webEnvironment(
    { host: '127.0.0.1', port: 4242 },
    { functionName: 'f', memoryMb: 2048, taskRoot: '/var/task', runtimeLine: 'nodejs24.x' },
  );
  assert.equal(env[HTTP_ENDPOINT_ENV], '127.0.0.1:4242');
  assert.equal(env.AWS_EXECUTION_ENV, 'AWS_Lambda_nodejs24.x');
  assert.equal(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, '2048');
  for (const name of ['PORT', 'AWS_LAMBDA_RUNTIME_API', '_HANDLER']) assert.equal(name in env, false, name);
});

test('lambda-web cells have no memory size of their own and run on nodejs24.x whatever the lists say', () => {
  const lists = { targets: ['server', 'lambda-web'], memories: [512], runtimes: ['node'], lambdaRuntimes: ['nodejs22.x'] };
  const cells = cellsOf([{ framework: 'x' }], ['target', 'memory', 'runtime'], lists);
  assert.deepEqual(
    cells.map((c) => [c.target, c.memory, c.runtime]),
    [
      ['server', 512, 'node'],
      ['lambda-web', 0, 'nodejs24.x'],
    ],
  );
});

/** A SampleIO whose child "printed" `line` at `lineAt` ms after the spawn (never, when undefined). */
function fakeIo(line: string | undefined, lineAt = 0): SampleIO {
  const spawnAt = performance.now();
  return {
    spawnAt,
    app: undefined,
    protocolLine: () => (line === undefined ? new Promise<string>(() => undefined) : new Promise((r) => setTimeout(() => r(line), lineAt))),
    whileAlive: <T>(promise: Promise<T>) => promise,
  } as unknown as SampleIO;
}

function readyLine(port: number): string {
  const marks = { start: 1, imported: 2, startup: 3, listen: 4 };
  return JSON.stringify({ v: 2, timeOrigin: performance.timeOrigin, marks, port, rss: 1, heapUsed: 1, runtime: 'node v24' });
}

function listenAfter(port: number, ms: number): Promise<Server> {
  return new Promise((resolve) =>
    setTimeout(() => {
      const server = createServer((socket) => socket.destroy());
      server.listen(port, '127.0.0.1', () => resolve(server));
    }, ms),
  );
}

test('a server that says it is ready before it accepts is ready when it accepts (probed from outside)', async () => {
  const port = await freePort();
  const endpoint = { host: '127.0.0.1', port };
  const io = fakeIo(readyLine(port), 0);
  const server = listenAfter(port, 300);
  try {
    const { ready, acceptedAt } = await endpointReadiness(endpoint, 10_000)(io);
    assert.equal(ready.port, port);
    // causal, not a speed: nothing can accept before the listen 300 ms after the start (libuv's timers count whole
    // ms on a clock cached at the loop's turn: a 300 ms timer may fire at 299.9 on performance.now())
    assert.ok(acceptedAt! - io.spawnAt >= 299, `accepted at ${acceptedAt! - io.spawnAt} ms`);
  } finally {
    (await server).close();
  }
  assert.ok(!PROTOCOL_PREFIX.includes('{'));
});

test('a server that listens on another port fails at once with that reason, not at the limit', async () => {
  const port = await freePort();
  const endpoint = { host: '127.0.0.1', port };
  const started = performance.now();
  await assert.rejects(endpointReadiness(endpoint, 10_000)(fakeIo(readyLine(port + 1))), (error: Error) => {
    assert.ok(error instanceof SampleFailure);
    assert.equal(error.message, wrongPortReason({ port: port + 1 }, endpoint));
    assert.match(error.message, /not on AWS_LAMBDA_HTTP_ENDPOINT/);
    return true;
  });
  assert.ok(performance.now() - started < 10_000, 'it did not wait for the limit');
});

test("a server that never accepts within the platform's limit fails with the limit's reason", async () => {
  const port = await freePort();
  const endpoint = { host: '127.0.0.1', port };
  await assert.rejects(endpointReadiness(endpoint, 200)(fakeIo(undefined)), (error: Error) => {
    assert.ok(error instanceof SampleFailure);
    assert.equal(error.message, limitReason(endpoint, 200));
    return true;
  });
  assert.match(limitReason(endpoint, 10_000), /within 10 s, Lambda Web Functions' limit on INIT/);
});
