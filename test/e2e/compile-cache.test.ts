/**
 * The compile-cache directories of a run (metrics/measure/compile-cache.ts): none for `off`, a
 * fresh empty one per run for `cold`, one per cell filled by an unrecorded run for `warm`; the
 * variable the child really gets; and, on a Node that has the cache, that it is really filled.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { contractOf } from '../../generators/contract.ts';
import { loadGenerators } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { writeGenerated } from '../../generators/write.ts';
import { makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { CompileCacheDirs } from '../../metrics/measure/compile-cache.ts';
import { childEnvironment } from '../../metrics/measure/environment.ts';
import { blockedRecord, runSample } from '../../metrics/measure/sample.ts';
import { COMPILE_CACHE_ENV, launchOf } from '../../metrics/plan/launch.ts';
import type { CompileCache } from '../../metrics/plan/levers.ts';
import { echoedEnv, fixture, pinnedNode22, tempDir } from '../support/helpers.ts';

const cellWith = (compileCache: CompileCache, routes = 1): Cell =>
  makeCell({ framework: 'fixture', variant: 'validated', routes, compileCache });
/** A record standing in for a measured sample (nothing is spawned). */
const record = (cell: Cell, index = 1): SampleRecord =>
  blockedRecord({ cell, phase: 'sample', index }, { kind: 'failed', reason: 'not run' });

describe('compile-cache directories', () => {
  it('off: no directory, and the run is recorded', async () => {
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const calls: [string | undefined, boolean][] = [];
    await caches.run(cellWith('off'), (dir, recorded) => {
      calls.push([dir, recorded]);
      return Promise.resolve(record(cellWith('off')));
    });
    assert.deepEqual(calls, [[undefined, true]]);
    assert.equal(caches.dirFor(cellWith('off')), undefined);
    assert.deepEqual(readdirSync(scratch), [], 'nothing made');
  });

  it('cold: a fresh empty directory per run under the scratch folder, removed after it', async () => {
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const seen: { dir: string; empty: boolean; recorded: boolean }[] = [];
    for (const index of [1, 2]) {
      await caches.run(cellWith('cold'), (dir, recorded) => {
        seen.push({ dir: dir!, empty: readdirSync(dir!).length === 0, recorded });
        writeFileSync(path.join(dir!, 'entry'), 'x');
        return Promise.resolve(record(cellWith('cold'), index));
      });
    }
    assert.equal(seen.length, 2);
    assert.notEqual(seen[0]!.dir, seen[1]!.dir);
    for (const s of seen) {
      assert.ok(s.empty && s.recorded, JSON.stringify(s));
      assert.ok(s.dir.startsWith(path.join(scratch, 'compile-cache') + path.sep), s.dir);
      assert.ok(!existsSync(s.dir), 'removed after its run');
    }
  });

  it('warm: one directory per cell, filled by an unrecorded run before its first run', async () => {
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const calls: { dir: string; recorded: boolean; entries: number }[] = [];
    const measure = (dir: string | undefined, recorded: boolean) => {
      calls.push({ dir: dir!, recorded, entries: readdirSync(dir!).length });
      writeFileSync(path.join(dir!, `entry-${calls.length}`), 'x');
      return Promise.resolve(record(cellWith('warm'), calls.length));
    };
    const first = await caches.run(cellWith('warm'), measure);
    await caches.run(cellWith('warm'), measure);
    assert.deepEqual(
      calls.map((c) => c.recorded),
      [false, true, true],
      'the fill, then two recorded runs',
    );
    assert.equal(new Set(calls.map((c) => c.dir)).size, 1);
    assert.deepEqual(
      calls.map((c) => c.entries),
      [0, 1, 2],
      'the recorded runs find the filled cache',
    );
    assert.equal(first.index, 2, 'run() returns the recorded run, not the fill');
    assert.deepEqual(
      [...caches.fills.values()].map((f) => f.index),
      [1],
      'the fill is kept aside',
    );

    await caches.run(cellWith('warm', 2), measure);
    assert.notEqual(calls.at(-1)!.dir, calls[0]!.dir, 'another cell has its own cache');
    assert.equal(caches.fills.size, 2);
    caches.cleanup();
    assert.ok(
      calls.every((c) => !existsSync(c.dir)),
      'cleanup removes every directory',
    );
  });

  it('warm: once the run is stopped after the fill, no recorded run starts', async () => {
    let stopped = false;
    const caches = new CompileCacheDirs(tempDir(), () => stopped);
    const recordedRuns: boolean[] = [];
    const result = await caches.run(cellWith('warm'), (_dir, recorded) => {
      recordedRuns.push(recorded);
      stopped = true;
      return Promise.resolve(record(cellWith('warm')));
    });
    assert.deepEqual(recordedRuns, [false]);
    assert.equal(result, caches.fills.values().next().value);
    caches.cleanup();
  });

  it("dirFor (a runner outside run()'s loop): fresh for cold, shared per cell for warm", () => {
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const cold = [caches.dirFor(cellWith('cold')), caches.dirFor(cellWith('cold'))];
    assert.notEqual(cold[0], cold[1]);
    assert.equal(caches.dirFor(cellWith('warm')), caches.dirFor(cellWith('warm')));
    assert.notEqual(caches.dirFor(cellWith('warm')), caches.dirFor(cellWith('warm', 2)));
    for (const dir of [...cold, caches.dirFor(cellWith('warm'))]) assert.ok(existsSync(dir!));
    caches.cleanup();
    assert.ok(!existsSync(path.join(scratch, 'compile-cache')));
  });

  it('the child really gets the variable (cold) and does not (off), whatever the parent has', async () => {
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const parent = { ...childEnvironment().env, [COMPILE_CACHE_ENV]: '/parent/cache' };
    const envOf = async (cell: Cell) => {
      const launch = { command: process.execPath, file: fixture('env-echo.js'), compileCache: cell.compileCache };
      const sample = await caches.run(cell, (dir, recorded) =>
        runSample({
          cell,
          launch: launchOf(launch, scratch, parent, dir),
          contract: contractOf({}),
          phase: 'sample',
          index: 1,
          timeoutMs: 30_000,
          checkInvalidBody: recorded,
          firstHits: 0,
        }),
      );
      return echoedEnv(sample);
    };
    const cold = await envOf(cellWith('cold'));
    assert.ok(cold[COMPILE_CACHE_ENV]?.startsWith(path.join(scratch, 'compile-cache') + path.sep), cold[COMPILE_CACHE_ENV]);
    const off = await envOf(cellWith('off'));
    assert.equal(off[COMPILE_CACHE_ENV], undefined);
    caches.cleanup();
  });
});

describe('compile cache on a Node that has it (the pinned node22)', () => {
  let nodeHttp: FrameworkGenerator;
  let node22: ReturnType<typeof pinnedNode22>;
  before(async () => {
    nodeHttp = (await loadGenerators()).find((g) => g.name === 'node-http')!;
    node22 = pinnedNode22();
  });

  it("the warm cell's unrecorded run fills the cache its samples use; cold starts empty every time", async (t) => {
    if (!node22.runtime) {
      t.skip(node22.skip);
      return;
    }
    const { file } = await writeGenerated(nodeHttp, 1, 'validated');
    const scratch = tempDir();
    const caches = new CompileCacheDirs(scratch);
    const env = childEnvironment().env;
    for (const compileCache of ['cold', 'warm'] as const) {
      const cell = makeCell({ framework: 'node-http', variant: 'validated', routes: 1, runtime: 'node22', compileCache });
      const entries: number[] = [];
      for (const index of [1, 2]) {
        const sample = await caches.run(cell, (dir, recorded) => {
          entries.push(readdirSync(dir!).length);
          const launch = launchOf({ command: node22.runtime!.command, file, compileCache }, scratch, env, dir);
          return runSample({
            cell,
            launch,
            contract: contractOf(nodeHttp),
            phase: 'sample',
            index,
            timeoutMs: 60_000,
            checkInvalidBody: recorded && index === 1,
            firstHits: 0,
          });
        });
        assert.equal(sample.ok, true, sample.error);
        assert.equal(sample.runtimeVersion, `node ${node22.runtime.version}`);
      }
      if (compileCache === 'cold') assert.deepEqual(entries, [0, 0], 'cold: empty every time');
      else {
        assert.equal(entries.length, 3, 'warm: the fill, then two samples');
        assert.equal(entries[0], 0);
        assert.ok(entries[1]! > 0 && entries[2]! > 0, `warm: the samples find a filled cache (${entries.join(', ')})`);
      }
    }
    caches.cleanup();
  });
});
