/**
 * Lambda's runtime lines and the managed runtime's start, as plans (no process started): the lines
 * and their deprecations, the bootstrap's flags and variables from the memory size, the launch of a
 * `ric` cell, which cells the Lambda levers multiply, and that an old Lambda cell keeps its key and label.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellKey, cellLabel, makeCell, parseCell } from '../../metrics/core/cell.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { DEFAULT_BOOTSTRAP, heapFlags, managedRuntimeStart } from '../../metrics/plan/lambda-bootstrap.ts';
import { launchOf } from '../../metrics/plan/launch.ts';
import { expandCells } from '../../metrics/plan/levers.ts';
import { DEFAULT_SPEC, type LeverSpec } from '../../metrics/core/run-spec.ts';
import { DEFAULT_LAMBDA_RUNTIME, LAMBDA_RUNTIME_NAMES, parseLambdaRuntime } from '../../metrics/core/lambda-platform.ts';

describe('Lambda runtime lines', () => {
  it('offers nodejs22.x and nodejs24.x, the newest by default', () => {
    assert.deepEqual(LAMBDA_RUNTIME_NAMES, ['nodejs22.x', 'nodejs24.x']);
    assert.equal(DEFAULT_LAMBDA_RUNTIME, 'nodejs24.x');
    assert.equal(parseLambdaRuntime('--lambda-runtime', ' nodejs22.x '), 'nodejs22.x');
  });

  it('refuses a deprecated line with its date, and an unknown one, as usage errors', () => {
    assert.throws(
      () => parseLambdaRuntime('--lambda-runtime', 'nodejs20.x'),
      (e: unknown) => e instanceof UsageError && /nodejs20\.x is deprecated on Lambda since 2026-04-30/.test(e.message),
    );
    assert.throws(() => parseLambdaRuntime('--lambda-runtime', 'python3.13'), /is not a Lambda Node\.js runtime/);
    assert.throws(() => parseLambdaRuntime('--runtime', 'node', false), /is not a Lambda Node\.js runtime/);
  });
});

describe("the managed runtime's bootstrap", () => {
  it('derives the V8 heap limits from the memory size: new space 10 % (semi space half), old space the rest', () => {
    assert.deepEqual(heapFlags(128), ['--max-semi-space-size=6', '--max-old-space-size=116']);
    assert.deepEqual(heapFlags(1024), ['--max-semi-space-size=51', '--max-old-space-size=922']);
  });

  it('starts node with the flags and the client, NODE_PATH and AWS_EXECUTION_ENV of the line', () => {
    const start = managedRuntimeStart({ bootstrap: 'ric', line: 'nodejs22.x', memoryMB: 512, ricDir: '/rt', taskRoot: '/task' });
    assert.deepEqual(start.args, [
      '--expose-gc',
      '--max-http-header-size',
      '81920',
      '--max-semi-space-size=25',
      '--max-old-space-size=461',
      '/rt/index.mjs',
    ]);
    assert.equal(start.env.NODE_PATH, '/opt/nodejs/node22/node_modules:/opt/nodejs/node_modules:/rt/node_modules:/rt:/task');
    assert.equal(start.env.AWS_EXECUTION_ENV, 'AWS_Lambda_nodejs22.x');
  });

  it('ric-noflags starts the same client with the same variables and none of the flags', () => {
    const flagged = managedRuntimeStart({ bootstrap: 'ric', line: 'nodejs24.x', memoryMB: 512, ricDir: '/rt', taskRoot: '/task' });
    const bare = managedRuntimeStart({ bootstrap: 'ric-noflags', line: 'nodejs24.x', memoryMB: 512, ricDir: '/rt', taskRoot: '/task' });
    assert.equal(bare.bootstrap, 'ric-noflags');
    assert.deepEqual(bare.args, ['/rt/index.mjs']);
    assert.deepEqual(bare.flags, []);
    assert.deepEqual(bare.env, flagged.env);
    assert.equal(flagged.args.at(-1), '/rt/index.mjs');
    assert.ok(flagged.flags.length > 0);
  });

  it("a ric cell's launch runs the client (the handler is not an argument), never with the parent's NODE_PATH", () => {
    const start = managedRuntimeStart({ bootstrap: 'ric', line: 'nodejs24.x', memoryMB: 1024, ricDir: '/rt', taskRoot: '/task' });
    const launch = launchOf({ command: '/bin/node24', file: '/task/h.js', compileCache: 'off', start }, '/scratch', {
      PATH: '/bin',
      NODE_PATH: '/parent',
    });
    assert.equal(launch.args.at(-1), '/rt/index.mjs');
    assert.ok(!launch.args.includes('/task/h.js'));
    assert.equal(launch.file, '/task/h.js');
    assert.equal(launch.env.NODE_PATH, start.env.NODE_PATH);
  });
});

describe('the Lambda levers', () => {
  const base = [
    makeCell({ framework: 'hono', variant: 'validated', routes: 1, target: 'server' }),
    makeCell({ framework: 'hono', variant: 'validated', routes: 1, target: 'lambda' }),
  ];

  it('Lambda cells default to the newest line, the client and the default file cache; servers keep --runtime', () => {
    const cells = expandCells(base, DEFAULT_SPEC.cells);
    assert.equal(cells.length, 2);
    assert.deepEqual(
      cells.map((c) => [c.target, c.runtime, c.bootstrap, c.fileCache]),
      [
        ['server', 'node', 'probe', 'warm'],
        ['lambda', DEFAULT_LAMBDA_RUNTIME, DEFAULT_BOOTSTRAP, 'cold'],
      ],
    );
  });

  it('multiplies only the Lambda cells by the lines and starts, every cell by the file caches', () => {
    const levers: LeverSpec = {
      ...DEFAULT_SPEC.cells,
      lambdaRuntimes: ['nodejs22.x', 'nodejs24.x'],
      bootstraps: ['ric', 'probe'],
      fileCaches: ['warm', 'cold'],
    };
    const cells = expandCells(base, levers);
    assert.equal(cells.filter((c) => c.target === 'server').length, 2);
    assert.equal(cells.filter((c) => c.target === 'lambda').length, 8);
    assert.equal(new Set(cells.map(cellKey)).size, cells.length);
  });

  it('an old Lambda record (no bootstrap, no fileCache) keeps its key and label', () => {
    const old = parseCell({
      framework: 'hono',
      variant: 'validated',
      routes: 1,
      runtime: 'node',
      build: 'plain',
      compileCache: 'off',
      target: 'lambda',
    })!;
    assert.equal(old.bootstrap, 'probe');
    assert.equal(old.fileCache, 'warm');
    assert.equal(cellKey(old), 'hono|validated|1|node|plain|off|target=lambda');
    assert.equal(cellLabel(old), 'lambda/1-startup-hono-routes.js');
    const now = makeCell({ ...old, runtime: 'nodejs24.x', bootstrap: 'ric', fileCache: 'cold' });
    assert.equal(cellLabel(now), 'lambda/1-startup-hono-routes.js [runtime=nodejs24.x, bootstrap=ric, fileCache=cold]');
  });
});
