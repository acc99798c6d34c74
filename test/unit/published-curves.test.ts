/**
 * The published runs' curves say no more than their samples show (issue 47 items 1 and 2), checked
 * with code of its own on the committed folders of results/published/:
 *
 * - a run with fewer than 5 route counts (every Lambda run of 3) claims no growth class in scaling.csv
 *   or in any markdown table's growth column;
 * - hono's interval at 5,000 routes on 2026-11-26-server-matrix is at least as wide as the
 *   model-reselection bootstrap the audit ran (unweighted, the choice redone in each resample, on the
 *   same draws), and is the weighted reselection bootstrap method.md describes, re-derived here;
 * - in each server run, `--budget 500ms`'s interval holds where the medians cross 500 ms (read on a
 *   straight line between adjacent route counts), for every series and both curve metrics.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import seedrandom from 'seedrandom';
import { linearRegression, quantileSorted } from 'simple-statistics';
import { curveFits, curveMark } from '../../metrics/analyse/curve.ts';
import { seriesOf } from '../../metrics/analyse/scaling.ts';
import { publishedFolders } from '../../metrics/pipeline/results-page.ts';
import { loadRun } from '../../metrics/report/write.ts';
import { ROOT } from '../support/in-process.ts';

const folders = publishedFolders(path.join(ROOT, 'results'));
type Row = Record<string, string>;
const csvRows = (folder: string): Row[] => {
  const file = path.join(folder, 'scaling.csv');
  return existsSync(file) ? parse<Row>(readFileSync(file, 'utf8'), { columns: true }) : [];
};

/** The cells of every markdown table column headed `growth`. */
function growthCells(markdown: string): string[] {
  const cells: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || !/^\| *:?-/.test(lines[i + 1] ?? '')) continue;
    const split = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const column = split(lines[i]!).indexOf('growth');
    if (column < 0) continue;
    for (let j = i + 2; lines[j]?.startsWith('|'); j++) cells.push(split(lines[j]!)[column]!);
  }
  return cells;
}

describe('published runs: no growth class from fewer than 5 route counts', () => {
  const few = folders.filter(({ folder }) => csvRows(folder).some((r) => Number(r.route_counts) >= 3 && Number(r.route_counts) < 5));
  it('there are such runs (every Lambda run of 3 route counts)', () => {
    const names = few.map((f) => f.name);
    for (const run of ['2026-11-27-lambda', '2026-11-26-lambda-10', '2026-11-27-lambda-init']) assert.ok(names.includes(run), run);
  });
  for (const { name, folder } of few) {
    it(name, () => {
      for (const row of csvRows(folder)) {
        if (!row.model) continue;
        assert.equal(row.model, 'linear', `${row.series} ${row.metric}: the line alone`);
        assert.equal(row.growth, `not determined (${row.route_counts} route counts)`, `${row.series} ${row.metric}`);
      }
      for (const file of ['summary.md', 'scaling.md']) {
        const cells = growthCells(readFileSync(path.join(folder, file), 'utf8'));
        assert.ok(cells.length > 0, `${file} has a growth column`);
        for (const cell of cells)
          assert.match(cell, /^(not determined \(\d route counts\)|needs ≥ 3 (route counts|N)|–)$/, `${file}: ${cell}`);
      }
    });
  }
});

/** Least squares y = X·β with weights (normal equations, Gaussian elimination); the weighted SSE. */
function leastSquares(rows: number[][], y: number[], w: number[]): { beta: number[]; sse: number } {
  const p = rows[0]!.length;
  const a = Array.from({ length: p }, (_, i) => [
    ...Array.from({ length: p }, (_, j) => rows.reduce((s, r, k) => s + w[k]! * r[i]! * r[j]!, 0)),
    rows.reduce((s, r, k) => s + w[k]! * r[i]! * y[k]!, 0),
  ]);
  for (let c = 0; c < p; c++) {
    const pivot = a.slice(c).reduce((best, row, k) => (Math.abs(row[c]!) > Math.abs(a[best]![c]!) ? c + k : best), c);
    [a[c], a[pivot]] = [a[pivot]!, a[c]!];
    for (let r = 0; r < p; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k <= p; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  const beta = a.map((row, i) => row[p]! / row[i]!);
  const sse = rows.reduce((s, r, k) => s + w[k]! * (y[k]! - r.reduce((t, v, i) => t + v * beta[i]!, 0)) ** 2, 0);
  return { beta, sse };
}

/**
 * The slope at 5,000 routes of the model AICc chooses (a curve must beat the line by more than 2), fitted
 * on every sample: x in thousands of routes; the weights per sample (1 each: the audit's fit).
 */
function slopeAt5000(groups: { routes: number; values: number[] }[], weighted: boolean): number {
  const x = groups.flatMap((g) => g.values.map(() => g.routes / 1000));
  const y = groups.flatMap((g) => g.values);
  let w = y.map(() => 1);
  if (weighted) {
    const stats = groups.map((g) => {
      const mean = g.values.reduce((s, v) => s + v, 0) / g.values.length;
      const sd = Math.sqrt(g.values.reduce((s, v) => s + (v - mean) ** 2, 0) / (g.values.length - 1));
      return [Math.log(mean), Math.log(sd)];
    });
    const { m, b } = linearRegression(stats);
    w = groups.flatMap((g, i) => g.values.map(() => Math.exp(-2 * (b + m * stats[i]![0]!))));
  }
  const n = y.length;
  const aicc = (sse: number, k: number) => n * Math.log(sse / n) + 2 * k + (2 * k * (k + 1)) / (n - k - 1);
  const line = leastSquares(
    x.map((v) => [1, v]),
    y,
    w,
  );
  const quad = leastSquares(
    x.map((v) => [1, v, v * v]),
    y,
    w,
  );
  const pieces = groups.slice(1, -1).map((g) => {
    const k = g.routes / 1000;
    return {
      k,
      ...leastSquares(
        x.map((v) => [1, v, Math.max(0, v - k)]),
        y,
        w,
      ),
    };
  });
  const piece = pieces.reduce((best, p) => (p.sse < best.sse ? p : best));
  const scores = [
    { kind: 'linear', score: aicc(line.sse, 3), slope: line.beta[1]! / 1000 },
    { kind: 'quadratic', score: aicc(quad.sse, 4), slope: (quad.beta[1]! + 2 * quad.beta[2]! * 5) / 1000 },
    { kind: 'piecewise', score: aicc(piece.sse, 5), slope: (piece.beta[1]! + (5 > piece.k ? piece.beta[2]! : 0)) / 1000 },
  ];
  const best = [...scores].sort((a, b) => a.score - b.score)[0]!;
  return scores[0]!.score - best.score <= 2 ? scores[0]!.slope : best.slope;
}

describe('hono on 2026-11-26-server-matrix: the interval at 5,000 routes holds the choice of model', () => {
  const folder = path.join(ROOT, 'results', 'published', '2026-11-26-server-matrix');
  const context = loadRun(folder);
  const series = seriesOf(context.summaries).find((s) => s.label === 'hono')!;
  const groups = series.cells.map((s) => ({ routes: s.cell.routes, values: [...s.metrics.firstResponse!.values] }));
  const published = csvRows(folder).find((r) => r.series === 'hono' && r.metric === 'firstResponse')!;
  const shown = { low: Number(published.ms_per_route_at_5000_ci95_low), high: Number(published.ms_per_route_at_5000_ci95_high) };

  /** 1,000 resamples drawn as the report draws them (same seed, same order), the model chosen again in each. */
  function reselected(weighted: boolean): { low: number; high: number } {
    const random = seedrandom(`coldstart-curve|${series.key}|firstResponse`);
    const slopes: number[] = [];
    for (let r = 0; r < 1000; r++) {
      const drawn = groups.map((g) => ({
        routes: g.routes,
        values: g.values.map(() => g.values[Math.floor(random() * g.values.length)]!),
      }));
      slopes.push(slopeAt5000(drawn, weighted));
    }
    slopes.sort((a, b) => a - b);
    return { low: quantileSorted(slopes, 0.025), high: quantileSorted(slopes, 0.975) };
  }

  it("is at least as wide as the audit's unweighted model-reselection bootstrap (to the table's 0.001)", () => {
    const audit = reselected(false);
    assert.ok(shown.high - shown.low >= audit.high - audit.low - 0.001, `${JSON.stringify(shown)} vs ${JSON.stringify(audit)}`);
  });

  it('is the weighted model-reselection bootstrap, re-derived', () => {
    const ours = reselected(true);
    assert.ok(
      Math.abs(ours.low - shown.low) <= 0.0015 && Math.abs(ours.high - shown.high) <= 0.0015,
      `${JSON.stringify(shown)} vs ${JSON.stringify(ours)}`,
    );
  });
});

/** Where the medians cross the budget, between adjacent route counts: 0 when the first is past it, Infinity when none is. */
function crossing(points: { routes: number; median: number }[], budgetMs: number): number {
  for (let i = 0; i < points.length; i++) {
    if (points[i]!.median <= budgetMs) continue;
    if (i === 0) return 0;
    const [a, b] = [points[i - 1]!, points[i]!];
    return Math.floor(a.routes + ((budgetMs - a.median) * (b.routes - a.routes)) / (b.median - a.median));
  }
  return Infinity;
}

describe("published server runs: --budget 500ms's interval holds the medians' crossing", () => {
  const servers = folders.filter(({ folder }) => {
    const rows = csvRows(folder);
    return (
      rows.length > 0 &&
      rows.some((r) => r.model) &&
      !readFileSync(path.join(folder, 'samples.jsonl'), 'utf8').includes('"target":"lambda"')
    );
  });
  it('there are such runs', () => assert.ok(servers.some((s) => s.name === '2026-11-26-server-matrix')));
  for (const { name, folder } of servers) {
    it(name, () => {
      const context = loadRun(folder);
      const fits = curveFits(context.summaries, { budgetMs: 500 }).filter((f) => f.budget);
      assert.ok(fits.length > 0);
      for (const fit of fits) {
        // a cell whose every sample failed (lambda-web at 40,000 routes: the 10 s limit) has no median, and no point in the fit
        const points = fit.series.cells.flatMap((s) => {
          const stats = s.metrics[curveMark(s, fit.metric)];
          return stats ? [{ routes: s.cell.routes, median: stats.median }] : [];
        });
        const at = crossing(points, 500);
        const { ci } = fit.budget!;
        assert.ok(
          ci.low <= at && at <= ci.high,
          `${fit.series.label} ${fit.metric}: the medians cross at ${at}, the interval is ${ci.low} to ${ci.high}`,
        );
      }
    });
  }
});
