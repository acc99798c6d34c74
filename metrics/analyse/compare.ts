/**
 * Comparing two runs: per cell (matched by its key) and headline metric, the ratio of medians B/A
 * and a two-sided Mann-Whitney U p-value on the samples; a change is a regression or an
 * improvement only when p < 0.05. Cells present in one run only are listed, never dropped.
 */
import type { CellSummary, Stats } from './aggregate.ts';
import { cellKey, cellLabel, compareCells, type Cell } from '../core/cell.ts';
import { HEADLINE_METRICS, type Metric } from '../core/samples.ts';
import { mannWhitneyU } from './stats.ts';

export const ALPHA = 0.05;
export const COMPARE_METRICS: readonly Metric[] = HEADLINE_METRICS;

export type Verdict = 'regression' | 'improvement' | 'no significant change' | 'not comparable';

export interface CompareRow {
  cell: Cell;
  metric: Metric;
  a: Stats | undefined;
  b: Stats | undefined;
  /** median B / median A */
  ratio: number | undefined;
  p: number | undefined;
  verdict: Verdict;
  /** a significant regression above --fail-above */
  fails: boolean;
  /** with these sample counts no difference could reach p < 0.05 */
  tooFew: boolean;
}

export interface Comparison {
  rows: CompareRow[];
  onlyA: Cell[];
  onlyB: Cell[];
  failAbove: number | undefined;
}

/** The smallest two-sided p-value an exact test of sizes m and n can give: 2 / C(m + n, m). */
export function minimumP(m: number, n: number): number {
  let c = 1;
  for (let i = 1; i <= Math.min(m, n); i++) c = (c * (m + n - Math.min(m, n) + i)) / i;
  return Math.min(1, 2 / c);
}

export function compareRow(cell: Cell, metric: Metric, a: Stats | undefined, b: Stats | undefined, failAbove?: number): CompareRow {
  if (!a || !b) return { cell, metric, a, b, ratio: undefined, p: undefined, verdict: 'not comparable', fails: false, tooFew: false };
  const ratio = a.median > 0 ? b.median / a.median : undefined;
  const { p } = mannWhitneyU(a.values, b.values);
  const significant = p < ALPHA;
  const verdict: Verdict = !significant || ratio === undefined || ratio === 1 ? 'no significant change' : ratio > 1 ? 'regression' : 'improvement';
  return {
    cell,
    metric,
    a,
    b,
    ratio,
    p,
    verdict,
    fails: verdict === 'regression' && failAbove !== undefined && ratio !== undefined && ratio > failAbove,
    tooFew: minimumP(a.n, b.n) >= ALPHA,
  };
}

export function compareSummaries(a: CellSummary[], b: CellSummary[], failAbove?: number): Comparison {
  const inA = new Map(a.map((s) => [cellKey(s.cell), s]));
  const inB = new Map(b.map((s) => [cellKey(s.cell), s]));
  const both = a.filter((s) => inB.has(cellKey(s.cell))).sort((x, y) => compareCells(x.cell, y.cell));
  const rows = both.flatMap((sa) => {
    const sb = inB.get(cellKey(sa.cell))!;
    return COMPARE_METRICS.map((metric) => compareRow(sa.cell, metric, sa.metrics[metric], sb.metrics[metric], failAbove));
  });
  return {
    rows,
    onlyA: a.filter((s) => !inB.has(cellKey(s.cell))).map((s) => s.cell).sort(compareCells),
    onlyB: b.filter((s) => !inA.has(cellKey(s.cell))).map((s) => s.cell).sort(compareCells),
    failAbove,
  };
}
