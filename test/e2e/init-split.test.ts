/**
 * INIT split into loading and running (issue 41), measured by the probe in a real child: a file that
 * requires one module of known size and then spins a CPU loop in INIT reports that module as its
 * loading (one module, its exact size) and the loop as its running; fastify's eager file (an ES module
 * awaiting app.ready() at its top level) answers as its own bootstrap and, loaded by a client, reports
 * its split at its startup mark. The probe also times the running part in CPU time. A user's CommonJS
 * handler gets the same split, its own top level as running, through coldstart's bootstrap or (under a
 * client that imports it) the split preload; an ES module handler too under a client on Node 22 (the
 * preload's load hook marks its first statement), none through the bootstrap.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { contractOf, isExpectedAnswer, PROBE_NAME } from '../../generators/contract.ts';
import { readLambdaResult, routeEvent } from '../../generators/lambda-event.ts';
import { INIT_SPLIT_ENV, lambdaFileHeader, readLambdaLine, type LambdaReadyLine } from '../../generators/lambda-probe.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { writeGenerated } from '../../generators/write.ts';
import { initSplit } from '../../metrics/measure/targets/lambda.ts';
import { HANDLER_EXPORT_ENV, HANDLER_FILE_ENV, writeAppFiles } from '../../generators/app-probe.ts';
import type { AppSpec } from '../../metrics/core/app.ts';
import { makeCell, type Cell } from '../../metrics/core/cell.ts';
import { asksInitSplit } from '../../metrics/plan/lambda-bootstrap.ts';
import { runLambda } from '../support/lambda-helpers.ts';
import { pinnedNode22 } from '../support/helpers.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-init-split-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The ready line a child prints when a client (not the file itself) loads it with the split asked. */
function readyLineOf(args: string[], env: Record<string, string> = {}, node = process.execPath): LambdaReadyLine {
  const child = spawnSync(node, args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', [INIT_SPLIT_ENV]: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const lines = child.stdout.split('\n').flatMap((line) => {
    const parsed = readLambdaLine(line);
    return parsed && 'target' in parsed ? [parsed] : [];
  });
  assert.equal(lines.length, 1, child.stdout);
  return lines[0]!;
}

describe('INIT split, in a child', () => {
  it('a required module is loading (one module, its exact size) and a CPU loop after it is running', () => {
    const module = 'module.exports = { answer: 42 };\n// a comment to give it some size\n';
    writeFileSync(path.join(dir, 'dependency.js'), module);
    // the loop spins until 300 ms have passed on the child's own clock: running is at least that, whatever the load
    const file = path.join(dir, 'loop.js');
    writeFileSync(
      file,
      `${lambdaFileHeader('loop', 'validated', 1)}
const dependency = require('./dependency.js');
__csMark('imported');
const until = performance.now() + 300;
let spins = 0;
while (performance.now() < until) spins++;
__csMark('startup');
exports.handler = () => ({ statusCode: 200, body: String(dependency.answer + spins) });
`,
    );
    const ready = readyLineOf(['-e', `require(${JSON.stringify(file)})`]);
    assert.deepEqual(
      { modules: ready.load?.modules, bytes: ready.load?.bytes },
      { modules: 1, bytes: module.length },
      'the one module required, at its size',
    );
    const split = initSplit(ready);
    assert.ok(split.initRunningMs! >= 300, `the loop is running: ${JSON.stringify(split)}`);
    assert.ok(split.initLoadingMs! < split.initRunningMs!, JSON.stringify(split));
    // running + loading is the file's own INIT, start → startup
    const own = ready.marks.startup - ready.marks.start;
    assert.ok(Math.abs(split.initLoadingMs! + split.initRunningMs! - own) < 0.01);
  });

  it('records the running part in CPU time: a loop of 300 ms of CPU time is running, the required module loading', () => {
    // the loop spins until the process has used 300 ms more CPU time: running's CPU time is at least that, whatever the load
    const file = path.join(dir, 'cpu-loop.js');
    writeFileSync(
      file,
      `${lambdaFileHeader('cpu-loop', 'validated', 1)}
const dependency = require('./dependency.js');
__csMark('imported');
const cpu = () => { const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage(); return (u.user + u.system) / 1000; };
const until = cpu() + 300;
while (cpu() < until);
__csMark('startup');
exports.handler = () => ({ statusCode: 200, body: String(dependency.answer) });
`,
    );
    const ready = readyLineOf(['-e', `require(${JSON.stringify(file)})`]);
    const split = initSplit(ready);
    assert.ok(split.initRunningCpuMs! >= 300, `the loop is running, in CPU time: ${JSON.stringify(split)}`);
    assert.ok(split.initLoadingCpuMs! < split.initRunningCpuMs!, JSON.stringify(split));
    // loading + running is the file's own INIT in the split's CPU clock (the main thread's on Node 22+, else the
    // process's), start → startup; within a millisecond of the process's CPU marks for a one-threaded loop
    const own = ready.load!.ownCpuMs!;
    assert.equal(ready.load!.clock, 'threadCpuUsage' in process ? 'thread' : 'process');
    assert.ok(Math.abs(split.initLoadingCpuMs! + split.initRunningCpuMs! - own) < 0.01, JSON.stringify({ split, own }));
    const marks = ready.cpu.startup - ready.cpu.start;
    assert.ok(Math.abs(own - marks) < 1, JSON.stringify({ own, marks }));
  });

  it('without the variable the probe wraps nothing and prints nothing when a client loads it', () => {
    const file = path.join(dir, 'quiet.js');
    writeFileSync(
      file,
      `${lambdaFileHeader('quiet', 'validated', 1)}\n__csMark('imported');\n__csMark('startup');\nexports.handler = () => 1;\n`,
    );
    const child = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, '');
  });
});

describe("a user's handler", () => {
  const files = writeAppFiles(path.join(dir, 'app'));
  const dependency = 'module.exports = { answer: 42 };\n';
  // a CommonJS handler: one required module, then 300 ms of CPU time at its top level
  const handler = `const dependency = require('./handler-dependency.js');
const cpu = () => { const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage(); return (u.user + u.system) / 1000; };
const until = cpu() + 300;
while (cpu() < until);
exports.handler = async () => ({ statusCode: 200, body: String(dependency.answer) });
`;
  const handlerFile = path.join(dir, 'user-handler.js');
  writeFileSync(path.join(dir, 'handler-dependency.js'), dependency);
  writeFileSync(handlerFile, handler);
  const env = { [HANDLER_FILE_ENV]: handlerFile, [HANDLER_EXPORT_ENV]: 'handler' };

  /** the handler's file and what it requires are the modules; its top level is running, what it requires loading */
  function checkHandlerSplit(ready: LambdaReadyLine): void {
    assert.deepEqual(
      { modules: ready.load?.modules, bytes: ready.load?.bytes },
      { modules: 2, bytes: handler.length + dependency.length },
      'the handler file and the module it requires, at their sizes',
    );
    const split = initSplit(ready);
    assert.ok(split.initRunningCpuMs! >= 300, `its own top level is running: ${JSON.stringify(split)}`);
    assert.ok(split.initLoadingMs! < split.initRunningMs!, JSON.stringify(split));
  }

  it("coldstart's bootstrap (the probe start) loads it with its own top level as running", () => {
    checkHandlerSplit(readyLineOf(['-e', `require(${JSON.stringify(files.lambdaBootstrap)})`], env));
  });

  it("under a client that imports it (as AWS's does), the split preload reports the same split", () => {
    const imports = `await import(${JSON.stringify(pathToFileURL(handlerFile).href)});`;
    checkHandlerSplit(readyLineOf(['--require', files.lambdaSplit, '--input-type=module', '-e', imports], env));
  });

  const esm = path.join(dir, 'user-handler.mjs');
  const esmDependency = 'export const answer = 42;\n';
  // an ES module handler: one static import, then 300 ms of CPU time and a top-level await in its body
  const esmHandler = `import { answer } from './esm-dependency.mjs';
const cpu = () => { const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage(); return (u.user + u.system) / 1000; };
const until = cpu() + 300;
while (cpu() < until);
await new Promise((resolve) => setTimeout(resolve, 10));
export const handler = async () => ({ statusCode: 200, body: String(answer) });
`;
  writeFileSync(path.join(dir, 'esm-dependency.mjs'), esmDependency);
  writeFileSync(esm, esmHandler);
  const node22 = pinnedNode22();

  it(
    'an ES module handler under a client on Node 22: its imports loading, its body (top-level await too) running',
    { skip: node22.skip },
    () => {
      const imports = `await import(${JSON.stringify(pathToFileURL(esm).href)});`;
      const args = ['--require', files.lambdaSplit, '--input-type=module', '-e', imports];
      const ready = readyLineOf(args, { ...env, [HANDLER_FILE_ENV]: esm }, node22.runtime!.command);
      assert.deepEqual(
        { modules: ready.load?.modules, bytes: ready.load?.bytes },
        { modules: 2, bytes: esmHandler.length + esmDependency.length },
        'the handler and the module it imports, at their sizes (the source as written)',
      );
      assert.ok(ready.marks.start < ready.marks.imported && ready.marks.imported < ready.marks.startup, JSON.stringify(ready.marks));
      const split = initSplit(ready);
      assert.ok(split.initRunningCpuMs! >= 300, `its body is running: ${JSON.stringify(split)}`);
      assert.ok(split.initLoadingMs! < split.initRunningMs!, JSON.stringify(split));
    },
  );

  it("coldstart's bootstrap requires an ES module handler whole (no split), and the split is asked only under a client on Node 22+", () => {
    // (require of an ES module: one without a top-level await)
    const plain = path.join(dir, 'user-handler-plain.mjs');
    writeFileSync(plain, `import { answer } from './esm-dependency.mjs';\nexport const handler = async () => answer;\n`);
    const ready = readyLineOf(['-e', `require(${JSON.stringify(files.lambdaBootstrap)})`], { ...env, [HANDLER_FILE_ENV]: plain });
    assert.equal(ready.load, undefined);
    const cell = (bootstrap: Cell['bootstrap'], runtime: Cell['runtime']) =>
      makeCell({ framework: 'handler', variant: 'plain', routes: 1, target: 'lambda', source: 'app', bootstrap, runtime });
    assert.equal(asksInitSplit(cell('ric', 'nodejs22.x'), { file: esm } as AppSpec), true);
    assert.equal(asksInitSplit(cell('ric', 'nodejs24.x'), { file: esm } as AppSpec), true);
    assert.equal(asksInitSplit(cell('probe', 'nodejs24.x'), { file: esm } as AppSpec), false);
    assert.equal(asksInitSplit(cell('ric', 'node'), { file: esm } as AppSpec), false);
    assert.equal(asksInitSplit(cell('probe', 'nodejs22.x'), { file: handlerFile } as AppSpec), true);
    assert.equal(asksInitSplit({ ...cell('ric', 'nodejs22.x'), measure: 'instructions' }, { file: handlerFile } as AppSpec), false);
  });
});

describe("fastify's eager file", async () => {
  const fastify = (await loadGenerators('lambda')).find((g) => g.name === 'fastify')!;
  const { file } = await writeGenerated(fastify, 3, 'validated', undefined, { init: 'eager' });

  it('is an ES module in lambda/eager/ that awaits app.ready() after exporting the handler, the same bytes every time', async () => {
    assert.match(file, /lambda\/eager\/3-startup-fastify-routes\.mjs$/);
    const source = readFileSync(file, 'utf8');
    assert.ok(source.indexOf('export const handler = awsLambdaFastify(app);') < source.indexOf('await app.ready();'));
    assert.ok(source.indexOf('await app.ready();') < source.indexOf("__csMark('startup');"));
    assert.equal(await fastify.generate({ routes: 3, variant: 'validated', init: 'eager' }), source);
    // the lazy file leaves ready() to the first event
    assert.doesNotMatch(await fastify.generate({ routes: 3, variant: 'validated' }), /app\.ready\(\)/);
  });

  it('answers its last route as its own bootstrap (node file.mjs)', async () => {
    const contract = contractOf(fastify);
    const run = await runLambda(file, { events: [routeEvent(2, contract.validBody(2, PROBE_NAME))] });
    const [valid] = run.outcomes;
    assert.equal(valid?.kind, 'response', `${JSON.stringify(valid)}\n${run.stderr.slice(-2000)}`);
    const answer = readLambdaResult(valid.body);
    assert.ok(answer.ok && answer.status === 200 && isExpectedAnswer(answer.body, 2, PROBE_NAME), JSON.stringify(answer));
  });

  it("loaded by a client, reports its split at startup: fastify's modules loading, ready() in running", () => {
    const ready = readyLineOf(['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(file).href)});`]);
    assert.ok(ready.load!.modules > 50 && ready.load!.bytes > 100_000, JSON.stringify(ready.load));
    const split = initSplit(ready);
    assert.ok(split.initRunningMs! > 0 && split.initLoadingMs! > 0, JSON.stringify(split));
  });
});
