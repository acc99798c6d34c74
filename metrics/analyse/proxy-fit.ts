/**
 * How well a count stands for time: across cells, how the counted figure to the first answer (instructions, or
 * estimated cycles under --cache-sim) follows the quiet CPU time of the same cells.
 * - `r2`: R² of the least-squares line (with its intercept) from the count to the time. Over cells that span
 *   two orders of magnitude it is carried by the largest ones, so it says little of the small ones.
 * - The proportional estimate, ms = `msPerMillion` × millions counted, fitted on relative errors (the k that
 *   minimises Σ((k·count − ms) / ms)²), with the median and the worst error of its ms against the measured ms,
 *   in % (signed: positive when the estimate is above): the ms a count stands for, and how far to trust it
 *   over the cells it was fitted on (none beyond them).
 */
import { linearRegression, linearRegressionLine, median, rSquared } from 'simple-statistics';
import type { TimeEstimateMeta } from '../core/meta.ts';
import type { CellSummary } from './aggregate.ts';

export interface ProxyPoint {
  /** the cell, for the worst one's name */
  label: string;
  /** the count (instructions or estimated cycles) to the first answer */
  count: number;
  /** the median CPU time to the first answer, ms, on a quiet machine */
  cpuMs: number;
}

export interface ProxyFit {
  n: number;
  /** R² of the line count → ms (with intercept) */
  r2: number;
  /** the proportional estimate: ms per million counted */
  msPerMillion: number;
  /** its median absolute error over the cells, % */
  medianAbsErrorPct: number;
  /** the cell it misses most, and by how much (% of the measured ms, signed) */
  worst: { label: string; errorPct: number };
}

/** The fit over `points` (at least 3, with at least two different counts). */
export function proxyFit(points: readonly ProxyPoint[]): ProxyFit {
  if (points.length < 3) throw new Error('a proxy fit needs at least 3 cells');
  const xy = points.map((p) => [p.count / 1e6, p.cpuMs] as [number, number]);
  const r2 = rSquared(xy, linearRegressionLine(linearRegression(xy)));
  // least squares on relative errors: d/dk Σ(k·x/t − 1)² = 0
  const ratio = xy.map(([x, t]) => x / t);
  const k = ratio.reduce((a, r) => a + r, 0) / ratio.reduce((a, r) => a + r * r, 0);
  const errors = points.map((p, i) => ({ label: p.label, errorPct: (k * ratio[i]! - 1) * 100 }));
  const worst = errors.reduce((a, e) => (Math.abs(e.errorPct) > Math.abs(a.errorPct) ? e : a));
  const medianAbsErrorPct = median(errors.map((e) => Math.abs(e.errorPct)));
  return { n: points.length, r2, msPerMillion: k, medianAbsErrorPct, worst };
}

/** What the published fits' cells were (both fits are over the same 24 cells): beyond them, a fit has no evidence. */
const FIT_CELLS = {
  cells: 24,
  dimensions: {
    framework: ['node-http', 'fastify', 'deepkit'],
    variant: ['validated'],
    shape: ['flat'],
    schema: ['small'],
    target: ['server'],
    memory: ['0'],
    runtime: ['node'],
    build: ['plain'],
    compileCache: ['off'],
    bootstrap: ['probe'],
    fileCache: ['warm'],
    init: ['lazy'],
    version: ['installed'],
    source: ['generated'],
  },
  runtimeVersions: ['node v20.20.2'],
  machine: '2-core AMD EPYC',
  finding: 'docs/findings/2026-12-05-cycles-vs-cpu.md',
  date: '2026-12-05',
} as const;

/**
 * The published fit of instructions to quiet CPU time (docs/findings/2026-12-05-cycles-vs-cpu.md): 24 cells of
 * results/published/2026-12-05-cycles against the same cells' CPU time in results/published/2026-11-27-seed-table,
 * on a 2-core AMD EPYC. What a change in instructions stands for in ms on that machine, with how far the fit missed;
 * a model, not a measurement, and only of a machine like that one. test/unit/findings-cycles.test.ts recomputes it.
 */
export const INSTRUCTIONS_AS_TIME = {
  count: 'instructions',
  msPerMillion: 0.151,
  medianErrorPct: 7.1,
  worst: { cell: 'deepkit 5000', errorPct: 35.8 },
  largestCount: 122178239126,
  ...FIT_CELLS,
} as const satisfies TimeEstimateMeta;

/**
 * The published fit of estimated cycles (--cache-sim) to quiet CPU time, over the same cells as INSTRUCTIONS_AS_TIME:
 * the closer of the two (the finding says to quote it). test/unit/findings-cycles.test.ts recomputes it.
 */
export const CYCLES_AS_TIME = {
  count: 'cycles',
  msPerMillion: 0.12,
  medianErrorPct: 2.3,
  worst: { cell: 'deepkit 5000', errorPct: 24.1 },
  largestCount: 139949792536,
  ...FIT_CELLS,
} as const satisfies TimeEstimateMeta;

/** The count a cell's estimate multiplies: its median total (exec → first answer) of the fit's kind. */
function countOf(summary: CellSummary, fit: TimeEstimateMeta): number | undefined {
  return summary[fit.count]?.total?.median;
}

/**
 * A counted cell's estimated CPU time to the first answer by `fit` (undefined for a cell without that count), and
 * whether the cell is beyond the fit's evidence: its count larger than the fit's largest cell's, or a dimension's value
 * (framework, target, …) or its runtime not among theirs.
 */
export function estimatedMs(summary: CellSummary, fit: TimeEstimateMeta): { ms: number; beyond: boolean } | undefined {
  const count = countOf(summary, fit);
  if (count === undefined) return undefined;
  const cell = summary.cell as Readonly<Record<string, unknown>>;
  const outside = Object.entries(fit.dimensions).some(([dimension, values]) => !values.includes(String(cell[dimension])));
  const runtime = summary.runtimeVersion !== undefined && fit.runtimeVersions.includes(summary.runtimeVersion);
  return { ms: (count / 1e6) * fit.msPerMillion, beyond: count > fit.largestCount || outside || !runtime };
}
