/**
 * The tail of the Lambda estimate (issue 27): the calibration table's p95 and p99 from lambda-perf's
 * per-invocation values, the shipped table rebuilt byte for byte from the 30 days it was built from,
 * the shift model on known inputs and through calibrate(), old tables without a tail, bad tails
 * refused, and the comparison with public real distributions that docs/guide/lambda.md shows (the
 * functions the code-loading term is fitted on, with its leave-one-out median).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { calibrate, type Calibration } from '../../metrics/analyse/calibration.ts';
import { leaveOneOut, shippedCodeLoading, type LooRow, type TermModel } from '../../metrics/analyse/code-loading.ts';
import { shiftedTail, tailsOf, type Tail } from '../../metrics/analyse/init-tails.ts';
import type { CodeLoadingRow } from '../../metrics/calibration/lambda-code-loading.ts';
import {
  parseReferenceTable,
  readReferenceTable,
  referenceRow,
  SHIPPED_REFERENCE_FILE,
  type ReferenceTable,
  type Spread,
} from '../../metrics/calibration/lambda-reference.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { runLambdaReference } from '../../metrics/pipeline/lambda-reference.ts';
import { cell, sampleOf } from '../support/synthetic.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');
const THREE_DAYS = path.join(FIXTURES, 'lambda-perf', 'data');
const SHIPPED_DAYS = path.join(FIXTURES, 'lambda-perf', 'shipped');
const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-tails-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const shipped = readReferenceTable();

/** The quantile of R's (and numpy's) default definition, type 7: linear between the order statistics at (n − 1)p. */
function type7(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const low = sorted[Math.floor(at)]!;
  const value = low + (at - Math.floor(at)) * (sorted[Math.ceil(at)]! - low);
  return Math.round(value * 100) / 100;
}

function refresh(folder: string, name: string): { table: ReferenceTable; out: string } {
  const out = path.join(dir, `${name}.json`);
  const table = runLambdaReference({ lambdaPerf: [folder], reports: [], out, today: '2026-11-26' }, () => {});
  return { table, out };
}

describe("the table's tail, from lambda-perf's per-invocation Init Durations", () => {
  it("p95 and p99 are percentiles of every cold start of the function (R's and numpy's default, type 7), rounded to 0.01 ms", () => {
    const { table } = refresh(THREE_DAYS, 'three');
    const days = readdirSync(THREE_DAYS).filter((n) => /^\d{4}-\d{2}-\d{2}\.json$/.test(n));
    for (const row of table.rows) {
      const name = `lambda-perf-${row.runtime.replace('.', '')}-zip-${row.memoryMB}-${row.architecture}`;
      const values = days.flatMap((d) =>
        (JSON.parse(readFileSync(path.join(THREE_DAYS, d), 'utf8')) as { runtimeData: { r: string; i: number[] }[] }).runtimeData
          .filter((e) => e.r === name)
          .flatMap((e) => e.i),
      );
      const { p95, p99, median } = row.initMs;
      assert.equal(p95, type7(values, 0.95), name);
      assert.equal(p99, type7(values, 0.99), name);
      assert.ok(values.filter((v) => v <= p95).length >= 0.95 * (values.length - 1), `${name}: p95 ${p95} has too few values below`);
      assert.ok(median <= p95 && p95 <= p99 && p99 <= Math.max(...values));
      assert.equal(row.durationMs.p95, undefined, "Durations are lambda-perf's daily means: no invocation's tail");
    }
  });

  it('the shipped table is what the refresh writes from the 30 days it was built from, byte for byte', () => {
    const { out } = refresh(SHIPPED_DAYS, 'shipped');
    assert.equal(readFileSync(out, 'utf8'), readFileSync(SHIPPED_REFERENCE_FILE, 'utf8'));
    assert.ok(shipped.rows.every((r) => r.initMs.p95 !== undefined && r.initMs.p99 !== undefined));
  });
});

describe('tables without a tail, and bad tails', () => {
  const untailed = (table: ReferenceTable): unknown => ({
    ...table,
    rows: table.rows.map((r) => ({ ...r, initMs: { median: r.initMs.median, p25: r.initMs.p25, p75: r.initMs.p75, n: r.initMs.n } })),
  });

  it('a table written before the tail still reads, and its estimates have no Init tail, saying why', () => {
    const old = parseReferenceTable(untailed(shipped), 'old.json');
    assert.equal(old.rows[0]!.initMs.p95, undefined);
    const c = calibrateOne(old, [40, 40, 40], [35, 35, 35]);
    assert.ok(c.init);
    const tails = tailsOf(c);
    assert.equal(tails.init, undefined);
    assert.match(tails.missing!, /has no p95 and p99 of the reference's Init/);
  });

  const bad: [string, Partial<Spread>, RegExp][] = [
    ['a p95 below the median', { p95: 1, p99: 500 }, /row 1: initMs or durationMs/],
    ['a p99 below the p95', { p95: 300, p99: 200 }, /median ≤ p95 ≤ p99/],
    ['a p95 without its p99', { p95: 300 }, /p95 and p99 together/],
    ['a negative p99', { p95: 300, p99: -1 }, /row 1/],
  ];
  for (const [name, tail, message] of bad) {
    it(`${name} is refused, naming the row`, () => {
      const table = untailed(shipped) as { rows: { initMs: object }[] };
      table.rows[0]!.initMs = { ...table.rows[0]!.initMs, ...tail };
      assert.throws(() => parseReferenceTable(table, 't.json'), message);
    });
  }
});

function lambdaSample(framework: string, initMs: number, invokeCpuMs: number, index: number): SampleRecord {
  const base = sampleOf(cell(framework, 1, { target: 'lambda' }), initMs + 3, index);
  const { listen: _listen, ...marks } = base.marks!;
  return {
    ...base,
    marks: { ...marks, init: initMs, firstResponse: initMs + 3 },
    lambda: { initMs, durationMs: 3, billedMs: Math.ceil(initMs) + 3, memorySizeMB: 1024, maxMemoryUsedMB: 40, invokeCpuMs },
  };
}

/** The calibration of a node-http cell with these Init Durations (and invocation CPU times), beside a reference with those. */
function calibrateOne(
  table: ReferenceTable,
  inits: number[],
  references: number[],
  cpus = inits.map(() => 2),
  codeLoading?: TermModel,
): Calibration {
  const samples = [
    ...inits.map((init, i) => lambdaSample('node-http', init, cpus[i]!, i + 1)),
    ...references.map((init, i) => lambdaSample('reference', init, 1, i + 1)),
  ];
  const result = [...calibrate(aggregate(samples), table, 'x86_64', {}, codeLoading).entries()].find(([key]) =>
    key.startsWith('node-http'),
  );
  return result![1];
}

describe('the shift model', () => {
  it("moves the estimate's median by the real reference's own p95 and p99 above its median", () => {
    assert.deepEqual(shiftedTail(200, { median: 130, p25: 120, p75: 140, p95: 160, p99: 190, n: 300 }), { p50: 200, p95: 230, p99: 260 });
    assert.equal(shiftedTail(200, { median: 130, p25: 120, p75: 140, n: 300 }), undefined, 'no tail in the table, none made up');
    assert.equal(shiftedTail(Number.NaN, { median: 130, p25: 120, p75: 140, p95: 160, p99: 190, n: 300 }), undefined);
  });

  it("through calibrate(): Init's tail is the estimate plus the real row's spread, whatever this machine's spread", () => {
    const row = referenceRow(shipped, 'nodejs20.x', 'x86_64', 1024)!;
    const quiet = calibrateOne(shipped, [40, 41, 40, 39, 40], [35, 35, 35, 35, 35]);
    const noisy = calibrateOne(shipped, [20, 41, 40, 39, 90], [35, 35, 35, 35, 35]);
    for (const c of [quiet, noisy]) {
      const tail = tailsOf(c).init!;
      assert.equal(tail.p50, c.init!.estimate);
      assert.ok(Math.abs(tail.p95 - (c.init!.estimate + row.initMs.p95! - row.initMs.median)) < 1e-9);
      assert.ok(Math.abs(tail.p99 - (c.init!.estimate + row.initMs.p99! - row.initMs.median)) < 1e-9);
    }
    assert.deepEqual(tailsOf(quiet).init, tailsOf(noisy).init, 'the same median here: the same tail');
  });

  it('with the code-loading term, the tail moves with the median the term raised', () => {
    const row = referenceRow(shipped, 'nodejs20.x', 'x86_64', 1024)!;
    const without = calibrateOne(shipped, [140, 140, 140], [35, 35, 35]);
    // H = 35: the excess at the fit's speed is the one measured here
    const withTerm = calibrateOne(shipped, [140, 140, 140], [35, 35, 35], undefined, {
      coefficient: 1.2,
      helloWorldMs: () => 35,
      fittedUpToMs: 200,
    });
    assert.ok(Math.abs(withTerm.init!.estimate - without.init!.estimate - 1.2 * 105) < 1e-9, 'the term: k × (140 − 35)');
    const tail = tailsOf(withTerm).init!;
    assert.ok(Math.abs(tail.p95 - tailsOf(without).init!.p95 - 1.2 * 105) < 1e-9);
    assert.ok(Math.abs(tail.p99 - (withTerm.init!.estimate + row.initMs.p99! - row.initMs.median)) < 1e-9);
  });

  it("Duration's tail is the cell's own invocation CPU at its 95th and 99th percentile, through the same model", () => {
    const flat = tailsOf(calibrateOne(shipped, [40, 40, 40, 40], [35, 35, 35, 35], [2, 2, 2, 2])).duration!;
    assert.ok(Math.abs(flat.p95 - flat.p50) < 1e-9 && Math.abs(flat.p99 - flat.p50) < 1e-9, 'no spread here, none there');
    const spread = tailsOf(calibrateOne(shipped, [40, 40, 40, 40], [35, 35, 35, 35], [2, 2, 3, 30])).duration!;
    assert.ok(spread.p50 < spread.p95 && spread.p95 <= spread.p99, JSON.stringify(spread));
  });
});

// ---- the comparison with public real distributions (docs/guide/lambda.md, "Tails of the estimate")

/**
 * The public functions are those the code-loading term is fitted on (calibration/lambda-code-loading.json,
 * one data file for both): their median estimate is the term's leave-one-out one (k fitted without
 * the function), or without the term (k = 0), and the tail's spread is the shipped table's row of
 * the same line, architecture and memory size (Deno's runs state no line: nodejs20.x, the newest then).
 */
const LOO = leaveOneOut(shippedCodeLoading().rows);
const NAMES = new Map(shippedCodeLoading().functions.map((f) => [f.id, f.name]));

const spreadOf = (r: CodeLoadingRow): Spread =>
  referenceRow(shipped, r.runtime === 'unstated' ? 'nodejs20.x' : r.runtime, r.architecture, r.memoryMB)!.initMs;

/** The other model tried: the median scaled by the reference's R_q / R_p50. */
const scaledTail = (p50: number, r: Spread): Tail => ({ p50, p95: (p50 * r.p95!) / r.median, p99: (p50 * r.p99!) / r.median });

const percent = (estimate: number, real: number | undefined) => {
  if (real === undefined) return '–';
  const e = Math.round((estimate / real - 1) * 100);
  return `${e > 0 ? '+' : e < 0 ? '−' : '±'}${Math.abs(e)} %`;
};
const n0 = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(0));

function comparisonRow({ row, now }: LooRow): string {
  const real = row.real;
  const tail = shiftedTail(now, spreadOf(row))!;
  const given = shiftedTail(real.initMs, spreadOf(row))!;
  const statistic = real.statistic === 'mean' ? ' (mean)' : '';
  const trimmed = row.offsetGroup ? ' (2σ-trimmed)' : '';
  const cells = [
    NAMES.get(row.function) ?? row.function,
    String(row.memoryMB),
    row.architecture,
    `${n0(real.initMs)}${statistic} / ${n0(real.p95Ms)}${trimmed} / ${n0(real.p99Ms)}`,
    `${n0(tail.p50)} / ${n0(tail.p95)} / ${n0(tail.p99)}`,
    `${percent(tail.p50, real.initMs)} / ${percent(tail.p95, real.p95Ms)} / ${percent(tail.p99, real.p99Ms)}`,
    `${percent(given.p95, real.p95Ms)} / ${percent(given.p99, real.p99Ms)}`,
  ];
  return `| ${cells.join(' | ')} |`;
}

type Median = 'with the term' | 'without the term' | 'real median';

/** Of every real p95 and p99: how many within ±25 %, the mean and the largest |error|, for a model and a median. */
function summary(model: (p50: number, r: Spread) => Tail | undefined, median: Median, rows = LOO): string {
  const errors = rows.flatMap((l) => {
    const p50 = median === 'real median' ? l.row.real.initMs : median === 'with the term' ? l.now : l.before;
    const tail = model(p50, spreadOf(l.row))!;
    return [
      [tail.p95, l.row.real.p95Ms],
      [tail.p99, l.row.real.p99Ms],
    ].flatMap(([e, r]) => (r === undefined ? [] : [Math.abs(e! / r - 1) * 100]));
  });
  const within = errors.filter((e) => e <= 25).length;
  const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
  return `${within} of ${errors.length} within ±25 % (mean |error| ${mean.toFixed(1)} %, largest ${Math.max(...errors).toFixed(1)} %)`;
}

describe('the comparison with public real distributions', () => {
  const guide = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'guide', 'lambda.md'), 'utf8');
  const finding = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'findings', '2026-11-26-init-tails.md'), 'utf8');

  it("docs/guide/lambda.md's table is the one the shipped data and the model give", () => {
    for (const l of LOO) {
      const line = comparisonRow(l);
      assert.ok(guide.includes(line), `docs/guide/lambda.md lacks the row:\n${line}`);
    }
  });

  it('the finding quotes both models, with each median, over every public real tail and without the trimmed ones', () => {
    const untrimmed = LOO.filter((l) => !l.row.offsetGroup);
    for (const [name, model] of [
      ['shift', shiftedTail],
      ['scale', scaledTail],
    ] as const) {
      for (const median of ['with the term', 'without the term', 'real median'] as const) {
        for (const [which, rows] of [
          ['all', LOO],
          ['untrimmed', untrimmed],
        ] as const) {
          const line = `${name}, ${median}, ${which}: ${summary(model, median, rows)}`;
          assert.ok(finding.includes(line), `the finding lacks:\n${line}`);
        }
      }
    }
  });
});
