/**
 * A route's cost as the curve it is. Per series (a framework with every other dimension but routes
 * fixed) and metric (first response, and ready: a server's `listen`, a Lambda handler's `init`):
 *
 * - weighted least-squares fits on the SAMPLES (every sample a point, not the cell medians), each
 *   sample weighted by 1 / its route count's variance (from the variance function `weigh` fits), so
 *   the route counts whose samples spread 12-22x more (the large ones) do not outweigh the rest: a line `a + b·N`, a quadratic
 *   `a + b·N + c·N²`, and a piecewise line `a + b·N + d·max(0, N − k)` whose breakpoint k is one of
 *   the measured route counts (inside the range), the one with the least weighted error;
 * - a curved model only with at least MIN_CURVE_POINTS route counts (with 3 or 4, a quadratic or a
 *   piecewise line passes through the means whatever the data): else the line alone;
 * - the model AICc chooses (Akaike's criterion with the small-sample correction), a curved model only
 *   when it beats the line by more than AICC_MARGIN;
 * - a seeded bootstrap (samples resampled within each route count, the weights, the model CHOICE and
 *   the fit redone each time) for 95 % percentile intervals: they hold the uncertainty of the choice;
 * - the marginal cost (the derivative, ms per route) at 100, 1,000 and 5,000 routes, only where the
 *   route count lies within the measured range;
 * - the growth class, claimed only when the resamples' curves hold it in at least GROWTH_SHARE of them
 *   (super-linear: a curve whose N² term or slope change is above 0; sub-linear: below 0; linear: the
 *   line; flat: the line, with a slope whose interval holds 0), else "not determined" with the share;
 * - with a budget (--budget), how many routes fit before the fitted median passes it, its interval
 *   widened to hold where the measured medians themselves cross it.
 *
 * Every figure is deterministic: the resamples are drawn with seedrandom from the series and metric.
 */
import seedrandom from 'seedrandom';
import { median, quantileSorted } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import { MIN_CURVE_POINTS, MIN_FIT_POINTS, readyMark, seriesOf, type Series } from './scaling.ts';
import type { Interval } from './stats.ts';
import type { Metric } from '../core/samples.ts';
import {
  MODEL_KINDS,
  predict,
  marginalCost,
  growthTerm,
  momentsOf,
  weigh,
  fitKind,
  PARAMETERS,
  aicc,
  chooseModel,
  type ModelKind,
  type GrowthClass,
  type Growth,
  type Model,
  type RouteGroup,
  type Moments,
  type Fitted,
} from './curve-model.ts';
export {
  AICC_MARGIN,
  chooseModel,
  marginalCost,
  MODEL_KINDS,
  type Growth,
  type GrowthClass,
  type Model,
  type ModelKind,
  type RouteGroup,
} from './curve-model.ts';

/** The metrics a curve is fitted on: first response (the honest cold start) and ready (listen; a Lambda handler's init). */
export const CURVE_METRICS = ['firstResponse', 'ready'] as const;
export type CurveMetric = (typeof CURVE_METRICS)[number];

/** The route counts the marginal cost is given at. */
export const MARGINAL_AT = [100, 1000, 5000] as const;
/** Bootstrap resamples per fit. */
export const CURVE_RESAMPLES = 1000;
/** A growth class is claimed only when at least this share of the resamples' curves holds it. */
export const GROWTH_SHARE = 0.95;
/** A figure with its 95 % percentile bootstrap interval. */
export interface Estimate {
  value: number;
  ci: Interval;
}

export interface MarginalCost extends Estimate {
  routes: number;
  /** false: the route count lies outside the measured range, and no figure is given (value NaN) */
  inRange: boolean;
}

/**
 * How many routes fit before the fitted median passes the budget: 0 = none (1 route passes it),
 * Infinity = beyond the largest measured N.
 */
export interface RouteBudget {
  budgetMs: number;
  routes: number;
  ci: Interval;
  /** where the measured medians cross it (mediansCrossing): the interval always holds it */
  medians: number;
}

export interface CurveFit {
  series: Series;
  metric: CurveMetric;
  /** the mark fitted: firstResponse, listen or init */
  mark: Metric;
  /** samples fitted */
  samples: number;
  /** the distinct route counts, ascending */
  routes: number[];
  /** undefined with fewer than MIN_FIT_POINTS route counts */
  model: Model | undefined;
  /** AICc of each model that could be fitted */
  aicc: Partial<Record<ModelKind, number>>;
  /** the share of the resamples whose data chose the same model (the choice redone in each) */
  modelShare: number | undefined;
  /** the growth term (slope, N² term or slope change) with its interval over the resamples that chose the same model */
  term: Estimate | undefined;
  /** undefined with fewer than MIN_FIT_POINTS route counts */
  growth: Growth | undefined;
  marginal: MarginalCost[];
  budget?: RouteBudget;
}

/**
 * The first route count where `model` + `offset` passes `budgetMs`, as routes that fit: 0 when 1
 * route passes it, Infinity when no N up to `maxRoutes` does.
 */
export function routesWithin(model: Model, offset: number, budgetMs: number, maxRoutes: number): number {
  const g = (n: number) => predict(model, n) + offset - budgetMs;
  if (g(1) > 0) return 0;
  const [a0 = 0, b = 0, c = 0] = model.coefficients;
  const a = a0 + offset - budgetMs;
  const roots: number[] = [];
  const linearRoot = (intercept: number, slope: number) => (slope !== 0 ? [-intercept / slope] : []);
  if (model.kind === 'linear') roots.push(...linearRoot(a, b));
  else if (model.kind === 'quadratic') {
    if (c === 0) roots.push(...linearRoot(a, b));
    else {
      const disc = b * b - 4 * c * a;
      if (disc >= 0) roots.push((-b - Math.sqrt(disc)) / (2 * c), (-b + Math.sqrt(disc)) / (2 * c));
    }
  } else {
    const k = model.breakpoint!;
    roots.push(...linearRoot(a, b).filter((x) => x <= k), ...linearRoot(a - c * k, b + c).filter((x) => x >= k));
  }
  const crossings = roots.filter((x) => x > 1 && x <= maxRoutes && g(x + Math.max(1e-6, x * 1e-9)) > 0).sort((x, y) => x - y);
  return crossings.length ? Math.floor(crossings[0]!) : Infinity;
}

/** The p-quantile of sorted values (simple-statistics' method); a budget beyond the range (Infinity) stays Infinity. */
function quantileOf(sorted: number[], p: number): number {
  const finite = sorted.filter(Number.isFinite);
  if (finite.length === sorted.length) return quantileSorted(sorted, p);
  // the rank p falls on, as quantileSorted would take it: at or past the first Infinity, it is Infinity
  const rank = Math.ceil(sorted.length * p) - 1;
  return rank >= finite.length ? Infinity : quantileSorted(finite, Math.min(1, (rank + 1) / finite.length));
}

/** 2.5 % and 97.5 % quantiles of the resampled figures (NaN left out). */
function percentiles(values: number[]): Interval {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { low: NaN, high: NaN };
  return { low: quantileOf(sorted, 0.025), high: quantileOf(sorted, 0.975) };
}

/** A budget's interval in whole routes, as its point is. */
const floored = (ci: Interval): Interval => ({ low: Math.floor(ci.low), high: Math.floor(ci.high) });

/** The growth class of one curve: a curve by the sign of its term, the line linear. */
function classOf(model: Model): Exclude<GrowthClass, 'flat'> {
  if (model.kind === 'linear') return 'linear';
  const term = growthTerm(model);
  return term > 0 ? 'super-linear' : term < 0 ? 'sub-linear' : 'linear';
}

/**
 * The growth the resamples' curves support: the class at least GROWTH_SHARE of them hold (the line
 * is flat when its slope's interval holds 0), else not determined with the most frequent class and
 * its share; not determined with fewer than MIN_CURVE_POINTS route counts, where no curve is tried.
 */
export function growthOf(classes: readonly GrowthClass[], slopeCi: Interval, routeCounts: number): Growth {
  if (routeCounts < MIN_CURVE_POINTS) return { determined: false, routeCounts };
  const counts = new Map<GrowthClass, number>();
  for (const c of classes) counts.set(c, (counts.get(c) ?? 0) + 1);
  // the most frequent class; ties in the order of the words
  const [leading, count] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['linear', 0];
  const share = classes.length ? count / classes.length : 0;
  if (share < GROWTH_SHARE) return { determined: false, leading, share };
  const flat = leading === 'linear' && !(slopeCi.low > 0 || slopeCi.high < 0);
  return { determined: true, growth: flat ? 'flat' : leading, share };
}

/**
 * Where the medians cross `budgetMs`, read between the measured route counts (a straight line from
 * the last median within it to the first past it): 0 when the smallest route count's median passes it
 * already (the medians show no route count within it), Infinity when no median does.
 */
export function mediansCrossing(medians: readonly { routes: number; median: number }[], budgetMs: number): number {
  const past = medians.findIndex((m) => m.median > budgetMs);
  if (past < 0) return Infinity;
  if (past === 0) return 0;
  const [below, above] = [medians[past - 1]!, medians[past]!];
  return Math.floor(below.routes + ((budgetMs - below.median) / (above.median - below.median)) * (above.routes - below.routes));
}

export interface CurveOptions {
  /** the route budget in ms (--budget); absent: no budget */
  budgetMs?: number;
  resamples?: number;
  /** the seed of the resamples; the series key and metric are added to it */
  seed?: string;
}

/** The model AICc chooses on one data set, with every model's score; undefined when not even the line can be fitted. */
function select(groups: readonly Moments[], samples: number): { fitted: Fitted; scores: Partial<Record<ModelKind, number>> } | undefined {
  const weighted = weigh(groups);
  // an exact fit has no error to take a logarithm of: the floor is far below any timer's resolution
  const totalWeight = weighted.reduce((sum, g) => sum + g.w * g.weight, 0);
  const grand = weighted.reduce((sum, g) => sum + g.w * g.weight * g.mean, 0) / totalWeight;
  const sst = weighted.reduce((sum, g) => sum + g.weight * (g.within + g.w * (g.mean - grand) ** 2), 0);
  const floor = Math.max(sst, 1e-300) * 1e-12;
  const scores: Partial<Record<ModelKind, number>> = {};
  const fits: Partial<Record<ModelKind, Fitted>> = {};
  for (const kind of MODEL_KINDS) {
    const fitted = fitKind(kind, weighted);
    const score = fitted ? aicc(fitted.sse, samples, PARAMETERS[kind], floor) : undefined;
    if (fitted && score !== undefined) [scores[kind], fits[kind]] = [score, fitted];
  }
  const kind = chooseModel(scores);
  return kind ? { fitted: fits[kind]!, scores } : undefined;
}

type Drawn = { routes: number; values: ArrayLike<number>; count: number };

/** The median of the residuals about a curve: the offset that moves it from the mean to the median. */
function offsetOf(m: Model, data: readonly Drawn[]): number {
  const residuals: number[] = [];
  for (const g of data) for (let i = 0; i < g.count; i++) residuals.push(g.values[i]! - predict(m, g.routes));
  return median(residuals);
}

/** The medians of each route count. */
function mediansOf(data: readonly Drawn[]): { routes: number; median: number }[] {
  return data.map((g) => ({ routes: g.routes, median: median(Array.from(g.values).slice(0, g.count)) }));
}

/** What each resample gave: its model's class and figures. */
interface Resampled {
  kinds: ModelKind[];
  classes: GrowthClass[];
  /** the growth term of the resamples that chose the full data's model */
  terms: number[];
  /** the slope of the resamples that chose the line */
  slopes: number[];
  marginals: number[][];
  budgets: number[];
  medianBudgets: number[];
}

/** The seeded bootstrap: samples drawn within each route count, the weights, the choice of model and its fit redone each time. */
function resample(
  sorted: readonly RouteGroup[],
  kind: ModelKind,
  seed: string,
  resamples: number,
  budgetMs: number | undefined,
): Resampled {
  const random = seedrandom(seed);
  const out: Resampled = {
    kinds: [],
    classes: [],
    terms: [],
    slopes: [],
    marginals: MARGINAL_AT.map(() => []),
    budgets: [],
    medianBudgets: [],
  };
  const samples = sorted.reduce((sum, g) => sum + g.values.length, 0);
  const maxRoutes = sorted[sorted.length - 1]!.routes;
  const drawn = sorted.map((g) => ({ routes: g.routes, values: new Float64Array(g.values.length), count: g.values.length }));
  for (let r = 0; r < resamples; r++) {
    for (let j = 0; j < sorted.length; j++) {
      const source = sorted[j]!.values;
      const target = drawn[j]!.values;
      for (let i = 0; i < source.length; i++) target[i] = source[Math.floor(random() * source.length)]!;
    }
    const chosen = select(
      drawn.map((g) => momentsOf(g.routes, g.values)),
      samples,
    );
    if (!chosen) continue;
    const model = chosen.fitted.model;
    out.kinds.push(model.kind);
    out.classes.push(classOf(model));
    if (model.kind === kind) out.terms.push(growthTerm(model));
    if (model.kind === 'linear') out.slopes.push(model.coefficients[1]!);
    MARGINAL_AT.forEach((n, i) => out.marginals[i]!.push(marginalCost(model, n)));
    if (budgetMs !== undefined) {
      out.budgets.push(routesWithin(model, offsetOf(model, drawn), budgetMs, maxRoutes));
      out.medianBudgets.push(mediansCrossing(mediansOf(drawn), budgetMs));
    }
  }
  return out;
}

/**
 * The route budget: the point where the fitted median passes it; its interval the resamples' curves'
 * crossings, widened to hold the medians' own crossing and its resampled interval, so it never says
 * less than what the medians show.
 */
function budgetOf(model: Model, whole: readonly Drawn[], budgetMs: number, out: Resampled): RouteBudget {
  const maxRoutes = whole[whole.length - 1]!.routes;
  const curve = percentiles(out.budgets);
  const medians = percentiles(out.medianBudgets);
  const measured = mediansCrossing(mediansOf(whole), budgetMs);
  const ci = {
    low: Math.min(curve.low, medians.low, measured),
    high: Math.max(curve.high, medians.high, measured),
  };
  return { budgetMs, routes: routesWithin(model, offsetOf(model, whole), budgetMs, maxRoutes), ci: floored(ci), medians: measured };
}

/**
 * The curve of one set of samples by route count. `seed` makes the bootstrap reproducible; the
 * interval is over the samples within each route count (the cells measured), not over new cells.
 */
export function fitCurve(
  groups: readonly RouteGroup[],
  seed: string,
  options: Pick<CurveOptions, 'budgetMs' | 'resamples'> = {},
): Omit<CurveFit, 'series' | 'metric' | 'mark'> {
  const sorted = groups.filter((g) => g.values.length > 0).sort((a, b) => a.routes - b.routes);
  const moments = sorted.map((g) => momentsOf(g.routes, g.values));
  const routes = sorted.map((g) => g.routes);
  const samples = sorted.reduce((sum, g) => sum + g.values.length, 0);
  const empty = { samples, routes, model: undefined, aicc: {}, modelShare: undefined, term: undefined, growth: undefined, marginal: [] };
  if (moments.length < MIN_FIT_POINTS) return empty;
  const chosen = select(moments, samples);
  if (!chosen) return empty;
  const { model } = chosen.fitted;
  const [minRoutes, maxRoutes] = [routes[0]!, routes[routes.length - 1]!];
  const { budgetMs } = options;
  const out = resample(sorted, model.kind, seed, options.resamples ?? CURVE_RESAMPLES, budgetMs);
  const marginal = MARGINAL_AT.map((n, i): MarginalCost => {
    const inRange = n >= minRoutes && n <= maxRoutes;
    return inRange
      ? { routes: n, inRange, value: marginalCost(model, n), ci: percentiles(out.marginals[i]!) }
      : { routes: n, inRange, value: NaN, ci: { low: NaN, high: NaN } };
  });
  const whole = sorted.map((g) => ({ routes: g.routes, values: g.values, count: g.values.length }));
  return {
    samples,
    routes,
    model,
    aicc: chosen.scores,
    modelShare: out.kinds.length ? out.kinds.filter((k) => k === model.kind).length / out.kinds.length : undefined,
    term: { value: growthTerm(model), ci: percentiles(out.terms) },
    growth: growthOf(out.classes, percentiles(out.slopes), routes.length),
    marginal,
    ...(budgetMs !== undefined ? { budget: budgetOf(model, whole, budgetMs, out) } : {}),
  };
}

/** The mark a curve metric reads in a cell: `ready` is the cell's ready mark (listen, or a handler's init). */
export function curveMark(summary: Pick<CellSummary, 'metrics'>, metric: CurveMetric): Metric {
  return metric === 'ready' ? readyMark(summary) : metric;
}

/** The curve of one series and metric. */
export function fitSeriesCurve(series: Series, metric: CurveMetric, options: CurveOptions = {}): CurveFit {
  const groups = new Map<number, number[]>();
  const marks = new Set<Metric>();
  for (const s of series.cells) {
    const mark = curveMark(s, metric);
    const values = s.metrics[mark]?.values;
    if (!values?.length) continue;
    marks.add(mark);
    // a route count's one cell lends its values as they are (an imported cell may hold a million)
    const earlier = groups.get(s.cell.routes);
    groups.set(s.cell.routes, earlier ? earlier.concat(values) : values);
  }
  const mark: Metric = marks.size === 1 ? [...marks][0]! : metric === 'ready' ? 'listen' : metric;
  const seed = `${options.seed ?? 'coldstart-curve'}|${series.key}|${metric}`;
  const fit = fitCurve(
    [...groups].map(([routes, values]) => ({ routes, values })),
    seed,
    options,
  );
  return { series, metric, mark, ...fit };
}

const cache = new WeakMap<readonly CellSummary[], Map<string, CurveFit[]>>();

/** Every series' curves, first response then ready; computed once per summaries and options. */
export function curveFits(summaries: readonly CellSummary[], options: CurveOptions = {}): CurveFit[] {
  const key = JSON.stringify([options.budgetMs ?? null, options.resamples ?? null, options.seed ?? null]);
  let byOptions = cache.get(summaries);
  if (!byOptions) {
    byOptions = new Map<string, CurveFit[]>();
    cache.set(summaries, byOptions);
  }
  const known = byOptions.get(key);
  if (known) return known;
  const fits = seriesOf([...summaries]).flatMap((series) => CURVE_METRICS.map((metric) => fitSeriesCurve(series, metric, options)));
  byOptions.set(key, fits);
  return fits;
}
