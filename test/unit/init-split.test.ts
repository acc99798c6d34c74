/**
 * INIT split into loading and running (issue 41), through calibrate(): the physical check that needs
 * no real Lambda. A hello world with a fixed CPU loop in INIT (its samples' split puts the loop in
 * running) is estimated as the real hello world plus the loop at Lambda's CPU speed, within the CPU
 * factor's own range, not as code loading × (1 + k); samples without the split (older runs) keep the
 * estimate they had; the split's figures reach summary.csv.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { calibrate, cpuSpeedFactor, type Calibration } from '../../metrics/analyse/calibration.ts';
import { onLambdaAt, shippedCodeLoading, termModel } from '../../metrics/analyse/code-loading.ts';
import { readReferenceTable, referenceRow } from '../../metrics/calibration/lambda-reference.ts';
import type { LocalCpuSpeed } from '../../metrics/core/meta.ts';
import type { LambdaFigures, SampleRecord } from '../../metrics/core/samples.ts';
import { cell, sampleOf } from '../support/synthetic.ts';

const table = readReferenceTable();
const model = termModel(shippedCodeLoading());
/**
 * The shipped model as it would be if a fitted row's split had a running part beyond the loop's: the running
 * part then lies within the evidence and keeps its interval (issue 47; no shipped row has the split).
 */
const validated = () => ({ ...model, runningFittedUpToMs: 10 * LOOP_MS });
/** This machine's CPU for the CPU reference's loop: three runs, the middle one 1,000 ms. */
const SPEED: LocalCpuSpeed = { iterations: 1_000_000, cpuMs: [990, 1000, 1010] };
const LOOP_MS = 300;
/** the hello world's Init here, per round (a little spread, as a real run has) */
const HELLO = [100, 102, 98, 101, 99];

function lambdaSample(framework: string, initMs: number, index: number, split?: Partial<LambdaFigures>): SampleRecord {
  const base = sampleOf(cell(framework, 1, { target: 'lambda' }), initMs + 3, index);
  const { listen: _listen, ...marks } = base.marks!;
  return {
    ...base,
    marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
    lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 1024, invokeCpuMs: 2, ...split },
  };
}

/**
 * A hello world whose INIT also runs a LOOP_MS CPU loop, beside the hello world; `withSplit`: the samples
 * carry INIT's split. `loadedBy` > 1: the machine was loaded, the loop took that many times its CPU time
 * on the wall clock, and (`withCpu`) the samples recorded the running part's CPU time too (the LOOP_MS it was).
 */
function loopCalibration(withSplit: boolean, loadedBy?: number, withCpu = true, on = model): Calibration {
  const split = (running: number): Partial<LambdaFigures> | undefined =>
    withSplit
      ? {
          initLoadingMs: 0,
          initRunningMs: running * (loadedBy ?? 1),
          initModules: 0,
          initModuleBytes: 0,
          ...(loadedBy && withCpu ? { initLoadingCpuMs: 0, initRunningCpuMs: running } : {}),
        }
      : undefined;
  const wall = LOOP_MS * (loadedBy ?? 1);
  const samples = [
    ...HELLO.map((ms, i) => lambdaSample('loop', ms + wall + 0.1, i + 1, split(LOOP_MS + 0.1))),
    ...HELLO.map((ms, i) => lambdaSample('reference', ms, i + 1, split(0.1))),
  ];
  const calibrations = calibrate(aggregate(samples), table, 'x86_64', { node: SPEED }, on);
  return [...calibrations.entries()].find(([key]) => key.startsWith('loop'))![1];
}

describe('INIT split: a hello world with a CPU loop in INIT', () => {
  const split = loopCalibration(true);
  const whole = loopCalibration(false);
  // the samples report node v20.20.2: the nodejs20.x row at 1024 MB (the samples' memory size)
  const real = referenceRow(table, 'nodejs20.x', 'x86_64', 1024)!.initMs.median;
  const speed = cpuSpeedFactor(SPEED, 'nodejs20.x', 'x86_64')!;

  it('is estimated as the real hello world + the loop × the CPU factor, not × (1 + k)', () => {
    const expected = real + LOOP_MS * speed.factor;
    assert.ok(split.init?.running, 'the running term is there');
    assert.equal(Math.round(split.init.running.hereMs * 1000) / 1000, LOOP_MS);
    assert.ok(Math.abs(split.init.estimate - expected) < 1, `${split.init.estimate} ≈ ${expected}`);
    // the loading part: nothing beyond the hello world, so the code-loading term adds nothing on Lambda
    assert.ok(Math.abs(onLambdaAt(split.init.codeLoading!.ratio, 'nodejs20.x', model)) < 1);
    // the whole excess as code loading (the estimate without the split) is far above it
    assert.equal(whole.init?.running, undefined);
    assert.ok(whole.init!.estimate - expected > 100, `without the split ${whole.init!.estimate} vs ${expected}`);
  });

  it("lies within the CPU factor's own error, and the interval holds it when a fitted split validates the running part", () => {
    const { low, high } = speed.range!;
    assert.ok(low < speed.factor && speed.factor < high);
    const within = loopCalibration(true, undefined, true, validated());
    const estimate = within.init!.estimate;
    assert.ok(Math.abs(estimate - split.init!.estimate) < 1e-9, 'the evidence changes the interval, not the estimate');
    assert.ok(estimate >= real + LOOP_MS * low - 1 && estimate <= real + LOOP_MS * high + 1);
    const running = within.init!.running!.interval!;
    assert.ok(running.low <= LOOP_MS * low + 1 && running.high >= LOOP_MS * high - 1, JSON.stringify(running));
    const interval = within.init!.interval!;
    assert.ok(interval.low <= estimate && estimate <= interval.high, JSON.stringify(interval));
    assert.equal(within.init!.runningUnvalidated, undefined);
  });

  it('with the shipped fit (no row has the split), the running part is unvalidated: no interval on it, the estimate or Billed', () => {
    assert.ok(split.init!.runningUnvalidated, 'flagged');
    assert.ok(Math.abs(split.init!.runningUnvalidated.onLambdaMs - split.init!.running!.onLambdaMs) < 1e-9);
    assert.equal(split.init!.runningUnvalidated.fittedUpToMs, 0);
    assert.equal(split.init!.running!.interval, undefined);
    assert.equal(split.init!.interval, undefined);
    assert.equal(split.billedInterval, undefined);
    assert.ok(split.duration?.interval, "Duration's interval is its samples' and stays");
  });

  it('with the running part in CPU time, a loaded machine (the loop twice as long on the wall) gives the same estimate', () => {
    const loaded = loopCalibration(true, 2, true, validated());
    const running = loaded.init!.running!;
    assert.equal(Math.round(running.hereCpuMs! * 1000) / 1000, LOOP_MS);
    assert.equal(Math.round(running.hereMs * 1000) / 1000, 2 * LOOP_MS, 'the wall time here, inflated');
    const expected = real + LOOP_MS * speed.factor;
    assert.ok(Math.abs(loaded.init!.estimate - expected) < 1, `${loaded.init!.estimate} ≈ ${expected}`);
    assert.ok(Math.abs(loaded.init!.estimate - split.init!.estimate) < 1);
    // the CPU time's interval, at the factor's range
    const { low, high } = speed.range!;
    assert.ok(running.interval!.low <= LOOP_MS * low + 1 && running.interval!.high >= LOOP_MS * high - 1, JSON.stringify(running));
    // the same samples without the CPU figures (a run before them) scale the wall time: twice the loop
    const wallOnly = loopCalibration(true, 2, false);
    assert.equal(wallOnly.init!.running!.hereCpuMs, undefined);
    const twice = real + 2 * LOOP_MS * speed.factor;
    assert.ok(Math.abs(wallOnly.init!.estimate - twice) < 1, `${wallOnly.init!.estimate} ≈ ${twice}`);
  });

  it('an older run (no split in its samples) keeps the estimate it had: measured + what Lambda adds + the term', () => {
    const init = whole.init!;
    assert.equal(init.estimate, init.measured + init.addition.median + init.codeLoading!.ms);
  });
});
