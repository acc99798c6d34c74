/**
 * How cold start grows with the route count: per series (a framework with every other dimension
 * but routes fixed) a least-squares fit `time = fixed + perRoute × N` on the cell medians, a check
 * for growth faster than linear, and the phase breakdown of every cell.
 */
import { linearRegression, linearRegressionLine, mean, median, rSquared } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import { CELL_DIMENSIONS } from '../core/cell.ts';
import { dimensionRow, type CellDimension } from '../core/dimensions.ts';
import type { Metric } from '../core/samples.ts';

/** The metrics the fits are made on. */
export const SCALING_METRICS = ['listen', 'firstResponse'] as const satisfies readonly Metric[];
export type ScalingMetric = (typeof SCALING_METRICS)[number];

/** A fit needs at least this many distinct route counts. */
export const MIN_FIT_POINTS = 3;
/**
 * A curve (and so a growth class: faster than linear, sub-linear, linear or flat) needs at least this
 * many distinct route counts: through 3 or 4 points a quadratic or a piecewise line passes whatever
 * the data, and a line is all they can say.
 */
export const MIN_CURVE_POINTS = 5;
/** log-log slope (on N ≥ 10) above this is growth clearly faster than linear */
export const SUPERLINEAR_SLOPE = 1.15;
/** a significant N² term must also be at least this share of the fitted time at the largest N */
export const QUADRATIC_TERM_SHARE = 0.1;

/** Student's t two-sided 5 % critical values for 1 … 30 degrees of freedom; 1.96 beyond. */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tCritical(df: number): number {
  return df >= 1 ? (T_975[df - 1] ?? 1.96) : Infinity;
}

export interface Series {
  /** the cell key without routes */
  key: string;
  /** the framework, with the dimensions that vary in this run, e.g. `fastify [variant=plain]` */
  label: string;
  framework: string;
  cells: CellSummary[];
}

const OTHER_DIMENSIONS = CELL_DIMENSIONS.filter((d) => d !== 'framework' && d !== 'routes');

/**
 * The series key seeds the curve's bootstrap (analyse/curve.ts), so it must not change for the cells
 * of old runs: rows added to the table after the seeds were fixed (key place 14 and on) join it only
 * when a cell leaves their stored value, as they join the cell key.
 */
const SEEDED_BEFORE = 14;
const inSeriesKey = (d: CellDimension, value: unknown) => {
  const row = dimensionRow(d);
  return (row.key?.at ?? 0) < SEEDED_BEFORE || value !== row.stored;
};

/** Group cells into series (every dimension but routes), cells sorted by routes. */
export function seriesOf(summaries: CellSummary[]): Series[] {
  const varying = OTHER_DIMENSIONS.filter((d) => new Set(summaries.map((s) => s.cell[d])).size > 1);
  const groups = new Map<string, Series>();
  for (const s of summaries) {
    const key = CELL_DIMENSIONS.filter((d) => d !== 'routes' && inSeriesKey(d, s.cell[d]))
      .map((d) => String(s.cell[d]))
      .join('|');
    let series = groups.get(key);
    if (!series) {
      const extras = varying.map((d) => `${d}=${s.cell[d]}`);
      series = {
        key,
        label: extras.length ? `${s.cell.framework} [${extras.join(', ')}]` : s.cell.framework,
        framework: s.cell.framework,
        cells: [],
      };
      groups.set(key, series);
    }
    series.cells.push(s);
  }
  for (const series of groups.values()) series.cells.sort((a, b) => a.cell.routes - b.cell.routes);
  return [...groups.values()];
}

export interface LinearFit {
  /** ms at N = 0 */
  fixedMs: number;
  /** ms per route */
  perRouteMs: number;
  r2: number;
  /** the slope differs from 0 (t-test, p < 0.05); false means routes add nothing measurable */
  slopeSignificant: boolean;
}

export interface GrowthCheck {
  /** slope of log(time) on log(N) over N ≥ 10; undefined with fewer than 2 such points */
  logLogSlope: number | undefined;
  /** R² of time = a + b·N + c·N² (needs ≥ 4 points) */
  quadraticR2: number | undefined;
  /** the partial F statistic of the N² term: (SSE_linear − SSE_quadratic) / (SSE_quadratic / (n − 3)) */
  quadraticF: number | undefined;
  superlinear: boolean;
  /** false with fewer than MIN_CURVE_POINTS distinct route counts: no growth class is claimed (superlinear is false) */
  determined: boolean;
  /** why it is (or is not) called faster than linear, in words */
  reason: string;
}

export interface ScalingFit {
  series: Series;
  metric: ScalingMetric;
  points: [number, number][];
  /** undefined with fewer than MIN_FIT_POINTS distinct N */
  fit: LinearFit | undefined;
  growth: GrowthCheck | undefined;
  /** the mark fitted when it is not `metric`: `init` stands for `listen` in a Lambda series */
  mark?: Metric;
}

/**
 * The mark that ends a cell's start: `listen` for a server, `init` (the first `next`) for a Lambda
 * handler, which has no listen.
 */
export function readyMark(summary: Pick<CellSummary, 'metrics'>): 'listen' | 'init' {
  return summary.metrics.listen === undefined && summary.metrics.init !== undefined ? 'init' : 'listen';
}

/** A metric of a cell, with `listen` read as the cell's ready mark. */
function markOf(summary: CellSummary, metric: Metric): Metric {
  return metric === 'listen' ? readyMark(summary) : metric;
}

export function fitLinear(points: [number, number][]): LinearFit {
  const { m, b } = linearRegression(points);
  const r2 = rSquared(points, linearRegressionLine({ m, b }));
  const n = points.length;
  const meanX = mean(points.map(([x]) => x));
  const sxx = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  const sse = sumSquares(points, (x) => b + m * x);
  const se = n > 2 && sxx > 0 ? Math.sqrt(sse / (n - 2) / sxx) : NaN;
  // an exact line (se 0) with a non-zero slope is as significant as it gets
  const slopeSignificant = se === 0 ? m !== 0 : Number.isFinite(se) && Math.abs(m) / se > tCritical(n - 2);
  return { fixedMs: b, perRouteMs: m, r2: Number.isFinite(r2) ? r2 : 1, slopeSignificant };
}

/** Least squares y = a + b·x + c·x² via the normal equations (x scaled to [0, 1] for conditioning). */
export function fitQuadratic(points: [number, number][]): { a: number; b: number; c: number; sse: number } | undefined {
  if (points.length < 3) return undefined;
  const scale = Math.max(...points.map(([x]) => Math.abs(x))) || 1;
  const s = new Array<number>(5).fill(0);
  const t = new Array<number>(3).fill(0);
  for (const [x0, y] of points) {
    const x = x0 / scale;
    for (let k = 0; k < 5; k++) s[k]! += x ** k;
    for (let k = 0; k < 3; k++) t[k]! += y * x ** k;
  }
  const m = [
    [s[0]!, s[1]!, s[2]!, t[0]!],
    [s[1]!, s[2]!, s[3]!, t[1]!],
    [s[2]!, s[3]!, s[4]!, t[2]!],
  ];
  // Gauss-Jordan elimination with partial pivoting
  for (let col = 0; col < 3; col++) {
    let pivot = col;
    for (let row = col + 1; row < 3; row++) if (Math.abs(m[row]![col]!) > Math.abs(m[pivot]![col]!)) pivot = row;
    if (Math.abs(m[pivot]![col]!) < 1e-12) return undefined;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let row = 0; row < 3; row++) {
      if (row === col) continue;
      const f = m[row]![col]! / m[col]![col]!;
      for (let k = col; k < 4; k++) m[row]![k]! -= f * m[col]![k]!;
    }
  }
  const a = m[0]![3]! / m[0]![0]!;
  const b = m[1]![3]! / m[1]![1]! / scale;
  const c = m[2]![3]! / m[2]![2]! / scale ** 2;
  const sse = points.reduce((sum, [x, y]) => sum + (y - (a + b * x + c * x * x)) ** 2, 0);
  return { a, b, c, sse };
}

function sumSquares(points: [number, number][], f: (x: number) => number): number {
  return points.reduce((sum, [x, y]) => sum + (y - f(x)) ** 2, 0);
}

/**
 * Growth faster than linear: a log-log slope on N ≥ 10 above 1.15, or (with ≥ 4 points) an N²
 * term that is positive, significant (partial F-test, p < 0.05) and at least 10 % of the time at
 * the largest N. With fewer than MIN_CURVE_POINTS distinct route counts, not determined.
 */
export function checkGrowth(points: [number, number][], fit: LinearFit): GrowthCheck {
  const distinct = new Set(points.map(([n]) => n)).size;
  if (distinct < MIN_CURVE_POINTS) {
    return {
      logLogSlope: undefined,
      quadraticR2: undefined,
      quadraticF: undefined,
      superlinear: false,
      determined: false,
      reason: `not determined (${distinct} route counts)`,
    };
  }
  const large = points.filter(([n, t]) => n >= 10 && t > 0);
  const logLogSlope = large.length >= 2 ? linearRegression(large.map(([n, t]) => [Math.log(n), Math.log(t)])).m : undefined;
  const mean = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const sst = sumSquares(points, () => mean);
  const sseLinear = sumSquares(points, (x) => fit.fixedMs + fit.perRouteMs * x);
  const quad = points.length >= 4 ? fitQuadratic(points) : undefined;
  let quadraticR2: number | undefined;
  let quadraticF: number | undefined;
  let quadraticSays = false;
  if (quad) {
    const df = points.length - 3;
    // relative to the data's scale, so rounding noise on an exact line is not an improvement
    const tiny = 1e-12 * Math.max(sst, 1e-300);
    const gain = Math.max(0, sseLinear - quad.sse);
    quadraticR2 = sst > 0 ? 1 - quad.sse / sst : 1;
    quadraticF = gain <= tiny ? 0 : quad.sse <= tiny ? Infinity : gain / (quad.sse / df);
    const nMax = Math.max(...points.map(([n]) => n));
    const fitted = quad.a + quad.b * nMax + quad.c * nMax * nMax;
    quadraticSays = quad.c > 0 && quadraticF > tCritical(df) ** 2 && fitted > 0 && (quad.c * nMax * nMax) / fitted >= QUADRATIC_TERM_SHARE;
  }
  const slopeSays = logLogSlope !== undefined && logLogSlope > SUPERLINEAR_SLOPE;
  const reasons: string[] = [];
  if (slopeSays) reasons.push(`log-log slope ${logLogSlope.toFixed(2)} on N ≥ 10`);
  if (quadraticSays)
    reasons.push(`a significant N² term: quadratic R² ${quadraticR2!.toFixed(3)} vs linear ${fit.r2.toFixed(3)}, F-test p < 0.05`);
  return {
    logLogSlope,
    quadraticR2,
    quadraticF,
    superlinear: slopeSays || quadraticSays,
    determined: true,
    reason: reasons.join('; '),
  };
}

/** The fit of one series and metric, on the medians of its cells. */
export function fitSeries(series: Series, metric: ScalingMetric): ScalingFit {
  const points = series.cells.flatMap((s): [number, number][] => {
    const m = s.metrics[markOf(s, metric)]?.median;
    return m === undefined ? [] : [[s.cell.routes, m]];
  });
  // a Lambda series fits its init where a server series fits listen
  const mark: Metric | undefined =
    metric === 'listen' && series.cells.length > 0 && series.cells.every((s) => readyMark(s) === 'init') ? 'init' : undefined;
  const marked = mark ? { mark } : {};
  const distinct = new Set(points.map(([n]) => n)).size;
  if (distinct < MIN_FIT_POINTS) return { series, metric, points, fit: undefined, growth: undefined, ...marked };
  const fit = fitLinear(points);
  return { series, metric, points, fit, growth: checkGrowth(points, fit), ...marked };
}

export function scalingFits(summaries: CellSummary[]): ScalingFit[] {
  return seriesOf(summaries).flatMap((series) => SCALING_METRICS.map((metric) => fitSeries(series, metric)));
}

/** The spawn timeline cut into phases, each as marks (from → to); spawn is 0. */
export const PHASES = [
  { name: 'runtime boot', from: undefined, to: 'start' },
  { name: 'framework import', from: 'start', to: 'imported' },
  { name: 'route registration', from: 'imported', to: 'startup' },
  { name: 'listen', from: 'startup', to: 'listen' },
  { name: 'first request', from: 'listen', to: 'firstResponse' },
] as const satisfies readonly { name: string; from: Metric | undefined; to: Metric }[];
export type PhaseName = (typeof PHASES)[number]['name'];

/** Each phase as the median of its per-sample differences (ms); undefined when the cell has no good sample. */
export function phaseBreakdown(summary: CellSummary): Record<PhaseName, number> | undefined {
  const result: Partial<Record<PhaseName, number>> = {};
  for (const phase of PHASES) {
    // a Lambda cell's `listen` phase ends at its init (the first `next`)
    const to = summary.metrics[markOf(summary, phase.to)]?.values;
    const from = phase.from === undefined ? to?.map(() => 0) : summary.metrics[markOf(summary, phase.from)]?.values;
    if (!to || !from || to.length === 0 || from.length !== to.length) return undefined;
    result[phase.name] = median(to.map((t, i) => t - from[i]!));
  }
  return result as Record<PhaseName, number>;
}

export const DEFAULT_PHASES_AT = 1000;

/** The N the phase chart shows by default: 1000, else the largest N ≤ 1000 present, else the smallest. */
export function pickPhaseRoutes(summaries: CellSummary[]): number | undefined {
  const routes = [...new Set(summaries.map((s) => s.cell.routes))].sort((a, b) => a - b);
  const below = routes.filter((n) => n <= DEFAULT_PHASES_AT);
  return below.length ? below[below.length - 1] : routes[0];
}
