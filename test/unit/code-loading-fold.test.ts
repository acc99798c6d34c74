/**
 * `npm run code-loading:fold` (issue 41): a re-measured public function's run folds its INIT split into
 * the code-loading rows of that function (its loading part's paired ratio, the running part at Lambda's
 * CPU speed for each row's architecture), leaves the offset groups' rows whole, and the refit reads them:
 * with the split, the part of a real Init that is CPU work no longer counts as code loading.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { cpuSpeedFactor } from '../../metrics/analyse/calibration.ts';
import { shippedCodeLoading } from '../../metrics/analyse/code-loading.ts';
import { readReferenceTable } from '../../metrics/calibration/lambda-reference.ts';
import { APP_SOURCE } from '../../metrics/core/cell.ts';
import type { LocalCpuSpeed } from '../../metrics/core/meta.ts';
import type { LambdaFigures, SampleRecord } from '../../metrics/core/samples.ts';
import { foldLoading, loadingCellsOf, refit } from '../../metrics/pipeline/code-loading-fold.ts';
import { cell, sampleOf } from '../support/synthetic.ts';

const table = readReferenceTable();
const SPEED: LocalCpuSpeed = { iterations: 1_000_000, cpuMs: [990, 1000, 1010] };
const HELLO = [100, 102, 98, 101, 99];

/** A sample of a cell at 512 MB on nodejs22.x: Init `initMs`, `running` of it the running part (wall and CPU). */
function sample(framework: string, source: typeof APP_SOURCE | undefined, initMs: number, running: number, index: number): SampleRecord {
  const c = cell(framework, 1, { target: 'lambda', memory: 512, runtime: 'nodejs22.x', ...(source ? { source } : {}) });
  const base = sampleOf(c, initMs + 3, index);
  const { listen: _listen, ...marks } = base.marks!;
  const split: Partial<LambdaFigures> = {
    initLoadingMs: initMs - running - 90,
    initRunningMs: running,
    initModules: 10,
    initModuleBytes: 1000,
    initLoadingCpuMs: 1,
    initRunningCpuMs: running,
  };
  return {
    ...base,
    runtimeVersion: 'node v22.23.3',
    marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
    lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 512, invokeCpuMs: 2, ...split },
  };
}

describe('code-loading:fold', () => {
  // cebert's DynamoDB handler: 80 ms more loading than the hello world and 20 ms of running (a client at module scope)
  const samples = [
    ...HELLO.map((ms, i) => sample('cebert-light', APP_SOURCE, ms + 100, 20, i + 1)),
    ...HELLO.map((ms, i) => sample('reference', undefined, ms, 0, i + 1)),
  ];
  const data = shippedCodeLoading();
  const cells = loadingCellsOf(aggregate(samples), table, { 'nodejs22.x': SPEED }, data, ['x86_64', 'arm64']);

  it("gives each app cell's loading part and its running part at Lambda's CPU speed, per architecture", () => {
    assert.deepEqual(
      cells.map((c) => [c.name, c.runtime, c.memoryMB, c.architecture]),
      [
        ['cebert-light', 'nodejs22.x', 512, 'x86_64'],
        ['cebert-light', 'nodejs22.x', 512, 'arm64'],
      ],
    );
    for (const c of cells) {
      // Init less running: 80 ms over the reference, paired round by round: (h + 80) / h
      assert.equal(c.part.initMs - c.part.referenceInitMs, 80);
      assert.equal(c.part.ratio, Math.round((180 / 100) * 10_000) / 10_000);
      const factor = cpuSpeedFactor(SPEED, 'nodejs22.x', c.architecture)!.factor;
      assert.ok(Math.abs(c.part.runningOnLambdaMs - 20 * factor) < 0.01, `${c.part.runningOnLambdaMs} vs ${20 * factor}`);
      assert.equal(c.part.runningMs, 20);
    }
  });

  const measurement = { id: 'split-test', date: '2026-11-27', command: 'npm run measure', machine: 'm', load: 'l', notes: 'n' };
  const folded = foldLoading(data, cells, measurement);

  it("fills that function's rows of the same line and size, and only those; the measurement is added", () => {
    assert.equal(folded.filled, 2);
    assert.equal(folded.unused.length, 0);
    const filled = folded.data.rows.filter((r) => r.local.loading);
    assert.deepEqual(
      filled.map((r) => [r.function, r.memoryMB, r.architecture, r.local.loading!.measurement]),
      [
        ['cebert-light', 512, 'x86_64', 'split-test'],
        ['cebert-light', 512, 'arm64', 'split-test'],
      ],
    );
    assert.ok(folded.data.measurements.some((m) => m.id === 'split-test'));
    // the shipped data is not changed
    assert.ok(data.rows.every((r) => !r.local.loading));
  });

  it('the refit reads the loading part: the running part taken out, k and the leave-one-out errors move', () => {
    const before = refit(data);
    assert.equal(before.fit.coefficient, data.fit.coefficient, 'the shipped rows refit to the shipped k');
    const after = refit(folded.data);
    assert.notEqual(after.fit.coefficient, data.fit.coefficient);
    assert.notDeepEqual(after.fit.looErrorPct['cebert-light'], data.fit.looErrorPct['cebert-light']);
    // every function keeps a range, the offset groups' too
    assert.deepEqual(Object.keys(after.fit.looErrorPct).sort(), Object.keys(data.fit.looErrorPct).sort());
  });
});
