/**
 * lambda:calibrate refits the code-loading term's k from real runs (issue 39): a local estimate run whose Lambda
 * cells recorded INIT's split (issue 41) beside the hello world, and a planted real run whose Init p50 of each cell
 * is the local estimate without the term + K_PLANTED × the term's x + a 50 ms hello-world offset. The fit
 * recovers K_PLANTED and the offset, writes k with its leave-one-out error per function, and the estimates made
 * with the file land on the planted real figures; with fewer functions than the fit's minimum the shipped k stays.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Calibration } from '../../metrics/analyse/calibration.ts';
import { MIN_FIT_FUNCTIONS } from '../../metrics/analyse/code-loading.ts';
import { cellKey, cellLabel } from '../../metrics/core/cell.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { calibrateLambda } from '../../metrics/pipeline/lambda-calibrate.ts';
import { loadRun } from '../../metrics/report/write.ts';
import { tempDir } from '../support/in-process.ts';
import { cell, sampleOf, writeRun } from '../support/synthetic.ts';

const K_PLANTED = 0.6;
const OFFSET_MS = 50;
/** the hello world's Init here, per round */
const HELLO = [100, 102, 98, 101, 99];
/** each function's loading excess over the hello world here, ms (routes → excess) */
const EXCESS: Record<number, number> = { 1: 20, 10: 60, 100: 150, 1000: 400 };
const RUNNING_MS = 0.1;

function lambdaSample(framework: string, routes: number, initMs: number, index: number, loadingMs: number): SampleRecord {
  // the runtime line the estimate's row is chosen by: the samples' node version
  const base = sampleOf(cell(framework, routes, { target: 'lambda', memory: 1024, runtime: 'nodejs24.x' }), initMs + 3, index, {
    runtimeVersion: 'node v24.11.0',
  });
  const { listen: _listen, ...marks } = base.marks!;
  return {
    ...base,
    marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
    lambda: {
      initMs,
      durationMs: 3,
      billedMs: Math.ceil(initMs) + 3,
      memorySizeMB: 1024,
      invokeCpuMs: 2,
      initLoadingMs: loadingMs,
      initRunningMs: RUNNING_MS,
      initModules: 1,
      initModuleBytes: 100,
    },
  };
}

function realSample(routes: number, initMs: number, index: number): SampleRecord {
  return {
    ...sampleOf(cell('app', routes, { target: 'aws-lambda', memory: 1024 }), initMs + 3, index),
    lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 1024 },
  };
}

/** The local run: the hello world and the app at `routes`, every sample with INIT's split. */
function localRun(routes: readonly number[]): string {
  const samples = HELLO.flatMap((hello, i) => [
    lambdaSample('reference', 1, hello + RUNNING_MS, i + 1, 0),
    ...routes.map((r) => lambdaSample('app', r, hello + EXCESS[r]! + RUNNING_MS, i + 1, EXCESS[r]!)),
  ]);
  const dir = writeRun(path.join(tempDir('coldstart-calibrate-k-'), 'local'), samples);
  // meta.json: the CPU reference's loop measured here (the running part's factor needs it), x86_64's estimates
  const meta = {
    version: 2,
    tool: 'coldstart',
    toolVersion: '0.1.0',
    startedAt: '2026-11-20T10:00:00.000Z',
    finishedAt: '2026-11-20T10:05:00.000Z',
    command: 'npm run metrics -- (synthetic)',
    spec: { cost: { memoryMB: 1024, architecture: 'x86_64', architectures: ['x86_64'] } },
    lambda: { cpuSpeed: { 'nodejs24.x': { iterations: 250_000, cpuMs: [380, 390, 400] } } },
  };
  writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
  return dir;
}

function appEstimates(dir: string, calibrationFile?: string): Map<number, Calibration> {
  const run = loadRun(dir, calibrationFile ? { calibrationFile } : {});
  const estimates = new Map<number, Calibration>();
  for (const s of run.summaries) {
    if (s.cell.framework !== 'app') continue;
    estimates.set(s.cell.routes, run.calibrations[0]!.calibration.get(cellKey(s.cell))!);
  }
  return estimates;
}

/** The planted real run: each cell's real Init p50 = estimate − k·x + K_PLANTED·x + OFFSET_MS (five samples around it). */
function plantedRealRun(local: string): { dir: string; real: Map<number, number> } {
  const real = new Map<number, number>();
  for (const [routes, c] of appEstimates(local)) {
    const term = c.init!.codeLoading!;
    const x = Math.max(0, term.atFitSpeedMs);
    real.set(routes, c.init!.estimate - term.coefficient * x + K_PLANTED * x + OFFSET_MS);
  }
  const samples = [...real].flatMap(([routes, p50]) => [-2, -1, 0, 1, 2].map((d, i) => realSample(routes, p50 + d, i + 1)));
  return { dir: writeRun(path.join(path.dirname(local), 'real'), samples), real };
}

describe('lambda:calibrate refits the code-loading term from real runs', () => {
  it('recovers a planted k and offset, writes k with its leave-one-out error, and the estimates with the file use it', () => {
    const local = localRun([1, 10, 100, 1000]);
    const shipped = appEstimates(local);
    assert.ok(
      [...shipped.values()].every((c) => c.init?.running && c.init.codeLoading),
      'the local estimates have the split',
    );
    const { dir, real } = plantedRealRun(local);
    const out = path.join(path.dirname(local), 'fitted.json');
    const lines: string[] = [];
    const file = calibrateLambda({ local, real: [dir], out }, (line) => lines.push(line));

    assert.ok(file.codeLoading, lines.join('\n'));
    assert.equal(file.codeLoading.coefficient, K_PLANTED, "the planted k, to the file's three decimals");
    assert.notEqual(file.codeLoading.shippedCoefficient, K_PLANTED);
    assert.equal(file.codeLoading.functions, 4);
    for (const routes of [1, 10, 100, 1000]) {
      const label = cellLabel(cell('app', routes, { target: 'lambda', memory: 1024, runtime: 'nodejs24.x' }));
      const range = file.codeLoading.looErrorPct[label];
      assert.ok(range, `a leave-one-out error for ${label}: ${JSON.stringify(file.codeLoading.looErrorPct)}`);
      assert.ok(Math.abs(range[0]) <= 0.1 && Math.abs(range[1]) <= 0.1, `${label}: ${range.join(' to ')} % on planted data`);
    }
    assert.equal(file.fitted.groups.length, 1);
    assert.ok(Math.abs(file.fitted.groups[0]!.offsetMs - OFFSET_MS) < 0.01, `offset ${file.fitted.groups[0]!.offsetMs}`);
    assert.ok(
      lines.some((l) => l.startsWith(`code-loading term: k = ${K_PLANTED} from 4 function(s)`)),
      lines.join('\n'),
    );
    // the Init interval's coverage, checked leave-one-out on the refit's functions, printed with the calibration (issue 47)
    assert.ok(
      lines.some((l) =>
        /^Init interval: the refitted k's error range, n=4 leave-one-out, \d+ % of held-out errors within \(\d of 4\)$/.test(l),
      ),
      lines.join('\n'),
    );
    const written = JSON.parse(readFileSync(out, 'utf8')) as { codeLoading?: { coefficient: number }; notes: string };
    assert.equal(written.codeLoading?.coefficient, K_PLANTED);
    assert.match(written.notes, /k refitted from 4 function\(s\): 0\.6/);
    assert.match(file.source, /; code-loading k 0\.6 refitted \(shipped [\d.]+\)$/, 'the source every estimate names says so');

    // the estimates made with the file: the planted real figures (k and offset both from the file)
    const refitted = appEstimates(local, out);
    for (const [routes, p50] of real) {
      const estimate = refitted.get(routes)!.init!;
      assert.equal(estimate.codeLoading?.coefficient, K_PLANTED, "the term uses the file's k");
      assert.ok(Math.abs(estimate.estimate - p50) < 0.5, `${routes} routes: ${estimate.estimate} ≈ ${p50}`);
      assert.ok(Math.abs(shipped.get(routes)!.init!.estimate - p50) > 1 || routes === 1, 'the shipped estimate was off');
    }
  });

  it(`with fewer than ${MIN_FIT_FUNCTIONS} functions with an excess: says so, keeps the shipped k, fits the offsets alone`, () => {
    const local = localRun([10, 1000]);
    const { dir } = plantedRealRun(local);
    const out = path.join(path.dirname(local), 'fitted.json');
    const lines: string[] = [];
    const file = calibrateLambda({ local, real: [dir], out }, (line) => lines.push(line));
    assert.equal(file.codeLoading, undefined);
    assert.ok(
      lines.some((l) => /^code-loading term: 2 function\(s\) with an excess .* a fit takes 3 .*the shipped k \([\d.]+\) kept$/.test(l)),
      lines.join('\n'),
    );
    assert.match(file.notes, /the code-loading term shipped/);
    assert.ok(
      lines.includes(
        "Init interval: the shipped fit's error range on its public real Init figures, " +
          'n=20 leave-one-out, 65 % of held-out errors within (13 of 20)',
      ),
      lines.join('\n'),
    );
    const refitted = appEstimates(local, out);
    const shippedK = appEstimates(local).get(10)!.init!.codeLoading!.coefficient;
    assert.equal(refitted.get(10)!.init!.codeLoading!.coefficient, shippedK);
  });
});
