/**
 * The calibration: the shipped table and its provenance, rebuilding it from lambda-perf data files
 * and REPORT lines (lambda:reference), the CPU share model against the table's own Durations, and
 * the estimate of a Lambda cell from the reference measured beside it (also for an older run whose
 * samples have no invocation CPU time).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CellRuntime } from '../../metrics/core/dimensions.ts';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { calibrate, runtimeLineOf } from '../../metrics/analyse/calibration.ts';
import { CALIBRATED_PERIOD_MS, durationAtMemory, REFERENCE_CPU_FRACTION } from '../../metrics/analyse/cpu-share.ts';
import { CPU_REFERENCE, cpuSpeedsOf, lambdaCpuPerIteration } from '../../metrics/calibration/lambda-cpu-reference.ts';
import { CPU_SPEED_ITERATIONS, measureCpuSpeed } from '../../metrics/measure/cpu-speed.ts';
import { buildReferenceTable } from '../../metrics/cloud/lambda-perf.ts';
import { readReferenceTable, referenceProvenance, referenceRow, REFERENCE_HANDLER } from '../../metrics/calibration/lambda-reference.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { runCli, tempDir } from '../support/helpers.ts';
import { cell, sampleOf, writeRun } from '../support/synthetic.ts';

const shipped = readReferenceTable();

function lambdaSample(framework: string, routes: number, initMs: number, durationMs: number, invokeCpuMs?: number): SampleRecord {
  const c = cell(framework, routes, { target: 'lambda' });
  const base = sampleOf(c, initMs + durationMs);
  const { listen: _listen, ...marks } = base.marks!;
  return {
    ...base,
    marks: { ...marks, init: initMs, firstResponse: initMs + durationMs },
    lambda: {
      initMs,
      durationMs,
      billedMs: Math.ceil(initMs) + Math.ceil(durationMs),
      memorySizeMB: 1024,
      maxMemoryUsedMB: 40,
      ...(invokeCpuMs !== undefined ? { invokeCpuMs } : {}),
    },
  };
}

describe('the shipped calibration table', () => {
  it('says where its figures come from and when, and names the reference function', () => {
    assert.match(shipped.source, /^maxday\/lambda-perf data, dates \d{4}-\d{2}-\d{2}–\d{4}-\d{2}-\d{2}$/);
    assert.ok(shipped.from <= shipped.to);
    assert.equal(shipped.handler, REFERENCE_HANDLER);
    assert.match(referenceProvenance(shipped), /maxday\/lambda-perf data, dates .*exports\.handler = \(\) => \(\{statusCode: 200\}\)/);
  });

  it('has nodejs22.x and nodejs24.x on both architectures at 128, 512 and 1024 MB, each with its count and spread', () => {
    for (const runtime of ['nodejs22.x', 'nodejs24.x']) {
      for (const arch of ['x86_64', 'arm64']) {
        for (const memory of [128, 512, 1024]) {
          const row = referenceRow(shipped, runtime, arch, memory);
          assert.ok(row, `${runtime} ${arch} ${memory}`);
          assert.ok(row.initMs.n > 0 && row.initMs.p25 <= row.initMs.median && row.initMs.median <= row.initMs.p75);
          assert.ok(row.durationMs.n > 0 && row.durationMs.p25 <= row.durationMs.median && row.durationMs.median <= row.durationMs.p75);
        }
      }
    }
  });

  it("the CPU share model gives each line's 128, 256 and 512 MB Duration from its 1024 MB one within 15 %", () => {
    for (const r of shipped.rows.filter((row) => row.memoryMB === 1024)) {
      const d = r.durationMs.median;
      for (const memory of [128, 256, 512]) {
        const real = referenceRow(shipped, r.runtime, r.architecture, memory)!.durationMs.median;
        const model = durationAtMemory({ cpuMs: d * REFERENCE_CPU_FRACTION, wallMs: d }, memory);
        assert.ok(Math.abs(model / real - 1) <= 0.15, `${r.runtime} ${r.architecture} ${memory} MB: model ${model} vs real ${real}`);
      }
    }
  });
});

describe('rebuilding the table', () => {
  const day = (entries: unknown[]) => JSON.stringify({ metadata: { generatedAt: 'x' }, runtimeData: entries });
  const entry = (name: string, init: number[], ad: number) => ({ r: name, p: 'zip', m: 128, a: 'x86_64', i: init, ad, mu: 70 });

  it('from lambda-perf data files: every Init Duration a value, every daily mean Duration a value; other runtimes left out', () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, '2026-08-01.json'),
      day([entry('lambda-perf-nodejs22x-zip-128-x86_64', [100, 110, 120], 10), entry('lambda-perf-python312-zip-128-x86_64', [80], 1)]),
    );
    writeFileSync(path.join(dir, '2026-08-02.json'), day([entry('lambda-perf-nodejs22x-zip-128-x86_64', [130], 14)]));
    const table = buildReferenceTable({ lambdaPerfFiles: [path.join(dir, '2026-08-02.json'), path.join(dir, '2026-08-01.json')] });
    assert.equal(table.source, 'maxday/lambda-perf data, dates 2026-08-01–2026-08-02');
    assert.equal(table.rows.length, 1);
    const row = table.rows[0]!;
    assert.deepEqual([row.runtime, row.architecture, row.memoryMB], ['nodejs22.x', 'x86_64', 128]);
    assert.deepEqual(row.initMs, { median: 115, p25: 107.5, p75: 122.5, p95: 128.5, p99: 129.7, n: 4 });
    assert.equal(row.durationMs.median, 12);
    assert.equal(row.durationMs.n, 2);
  });

  const report = (id: string, duration: number, used: number) =>
    `REPORT RequestId: ${id}\tDuration: ${duration} ms\tBilled Duration: ${Math.ceil(duration)} ms\t` +
    `Memory Size: 1024 MB\tMax Memory Used: ${used} MB`;

  it('lambda:reference from your REPORT lines writes the table and prints its provenance; a missing --lambda-runtime is exit 2', () => {
    const dir = tempDir();
    const log = path.join(dir, 'reference.log');
    writeFileSync(
      log,
      [
        `2026-09-01T10:00:00.000Z ${report('a1', 3.1, 70)}\tInit Duration: 140.00 ms`,
        `2026-09-01T10:00:01.000Z ${report('a2', 1, 70)}`,
        `2026-09-02T10:00:00.000Z ${report('a3', 3.3, 71)}\tInit Duration: 150.00 ms`,
      ].join('\n'),
    );
    const out = path.join(dir, 'table.json');
    const ok = runCli(['lambda-reference', '--reports', log, '--runtime', 'nodejs24.x', '--architecture', 'arm64', '--out', out]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /calibration table: REPORT lines of the reference function deployed by you, dates 2026-09-01–2026-09-02/u);
    assert.match(ok.stdout, /nodejs24\.x arm64 1024 MB: Init Duration 145 ms \(IQR 142\.5–147\.5, p95 149\.5, p99 149\.9, n 2\)/);
    const table = readReferenceTable(out);
    assert.equal(table.rows[0]!.initMs.n, 2, 'the warm invocation is no cold start');
    const bad = runCli(['lambda-reference', '--reports', log, '--out', out]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^coldstart: REPORT lines need --lambda-runtime and --arch/);
    const nothing = runCli(['lambda-reference', '--out', out]);
    assert.equal(nothing.status, 2);
    assert.doesNotMatch(nothing.stderr, /\n.+\n/);
  });
});

describe('the estimate of a Lambda cell', () => {
  it('Init: measured + (real reference − local reference); Duration through the model from the CPU times', () => {
    const samples = [
      lambdaSample('node-http', 1, 40, 4, 3),
      lambdaSample('reference', 1, 35, 3, 2),
      lambdaSample('node-http', 1, 42, 4, 3),
      lambdaSample('reference', 1, 37, 3, 2),
    ];
    const calibration = calibrate(aggregate(samples), shipped, 'x86_64');
    const c = [...calibration.entries()].find(([key]) => key.startsWith('node-http'))![1];
    const row = referenceRow(shipped, 'nodejs20.x', 'x86_64', 1024)!;
    assert.equal(c.missing, undefined);
    assert.equal(c.init!.measured, 41);
    assert.ok(Math.abs(c.init!.addition.median - (row.initMs.median - 36)) < 1e-9);
    assert.ok(Math.abs(c.init!.estimate - (41 + row.initMs.median - 36)) < 1e-9);
    // 1.5× the reference's CPU on Lambda's scale, above one vCPU's worth at 1024 MB: at least the reference's Duration
    assert.ok(c.duration!.estimate > row.durationMs.median);
    assert.equal(c.billedEstimate, Math.ceil(c.init!.estimate) + Math.ceil(c.duration!.estimate));
  });

  it("with the CPU reference's loop timed here: the reference's Lambda CPU plus the cell's extra CPU at Lambda's speed", () => {
    const samples = [lambdaSample('node-http', 1, 40, 4, 12), lambdaSample('reference', 1, 35, 3, 2)];
    const real = lambdaCpuPerIteration('nodejs20.x', 'x86_64')!;
    // this machine twice as fast as Lambda for the loop
    const local = { iterations: 1000, cpuMs: [real.msPerIteration * 500, real.msPerIteration * 400, real.msPerIteration * 600] };
    const calibration = calibrate(aggregate(samples), shipped, 'x86_64', { node: local });
    const of = (framework: string) => [...calibration.entries()].find(([key]) => key.startsWith(framework))![1];
    const c = of('node-http');
    assert.ok(Math.abs(c.cpuSpeed!.factor - 2) < 1e-9, `factor ${c.cpuSpeed!.factor}`);
    assert.equal(c.cpuSpeed!.row.memoryMB, 2048);
    const row = referenceRow(shipped, 'nodejs20.x', 'x86_64', 1024)!;
    const realCpu = row.durationMs.median * REFERENCE_CPU_FRACTION;
    const lambdaCpu = realCpu + 2 * (12 - 2);
    const expected = durationAtMemory(
      { cpuMs: lambdaCpu, wallMs: lambdaCpu + row.durationMs.median - realCpu },
      1024,
      CALIBRATED_PERIOD_MS,
    );
    assert.ok(Math.abs(c.duration!.estimate - expected) < 1e-9, `${c.duration!.estimate} against ${expected}`);
    // the reference itself: exactly its real Duration's model at its size, whatever the speed
    const ref = of('reference');
    const refExpected = durationAtMemory({ cpuMs: realCpu, wallMs: row.durationMs.median }, 1024, CALIBRATED_PERIOD_MS);
    assert.ok(Math.abs(ref.duration!.estimate - refExpected) < 1e-9);
    // without the loop the old conversion holds (older runs report as they did)
    const old = [...calibrate(aggregate(samples), shipped, 'x86_64').entries()].find(([key]) => key.startsWith('node-http'))![1];
    assert.equal(old.cpuSpeed, undefined);
    assert.notEqual(old.duration!.estimate, c.duration!.estimate);
  });

  it("meta.json's CPU speeds are read defensively: entries that are not positive numbers are left out", () => {
    assert.deepEqual(cpuSpeedsOf(undefined), {});
    assert.deepEqual(cpuSpeedsOf({ cpuSpeed: 'x' }), {});
    assert.deepEqual(
      cpuSpeedsOf({
        cpuSpeed: {
          a: { iterations: 10, cpuMs: [1, 2] },
          b: { iterations: 0, cpuMs: [1] },
          c: { iterations: 10, cpuMs: [] },
          d: { iterations: 10, cpuMs: [1, -1] },
          e: null,
        },
      }),
      { a: { iterations: 10, cpuMs: [1, 2] } },
    );
  });

  it("the CPU reference ships its source and date, and the loop runs here on the machine's node", () => {
    assert.match(CPU_REFERENCE.source, /^cebert\/aws-lambda-performance-benchmarks, commit [0-9a-f]{7}/);
    assert.match(CPU_REFERENCE.date, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(lambdaCpuPerIteration('nodejs24.x', 'x86_64')!.row.runtime, 'nodejs22.x', 'the nearest line the table has');
    assert.equal(lambdaCpuPerIteration('nodejs22.x', 'riscv'), undefined);
    const speed = measureCpuSpeed(process.execPath, 2)!;
    assert.equal(speed.iterations, CPU_SPEED_ITERATIONS);
    assert.equal(speed.cpuMs.length, 2);
    assert.ok(speed.cpuMs.every((ms) => ms > 0));
    assert.equal(measureCpuSpeed('/nonexistent/node', 1), undefined);
  });

  it('an older run (no invocation CPU time) still reports: an Init estimate, no Duration estimate, and why', () => {
    const dir = writeRun(tempDir(), [lambdaSample('node-http', 1, 40, 4), lambdaSample('reference', 1, 35, 3)], { arch: 'x86' });
    const result = runCli(['report', dir]);
    assert.equal(result.status, 0, result.stderr);
    const md = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    assert.match(md, /no estimate: no invocation CPU time recorded/);
    assert.match(md, /\| lambda\/1-startup-node-http-routes\.js \| nodejs20\.x x86_64 1024 MB \| 40\.0 \| \+[\d.]+ \(/);
  });
});

describe("a cell's Lambda runtime line", () => {
  it('comes from the version a probe reported, else from the runtime the cell names (node24 or nodejs24.x)', () => {
    const of = (runtime: CellRuntime, runtimeVersion?: string) =>
      runtimeLineOf({ cell: { ...cell('node-http', 1), runtime }, runtimeVersion });
    assert.equal(of('node', 'v22.23.3'), 'nodejs22.x');
    assert.equal(of('node24'), 'nodejs24.x');
    assert.equal(of('nodejs24.x'), 'nodejs24.x');
    assert.equal(of('nodejs22.x'), 'nodejs22.x');
    assert.equal(of('bun'), undefined);
  });
});
