/**
 * The per-route cost as a fitted curve (analyse/curve.ts) in every output: a table per metric for
 * scaling.md and summary.md (one unit, ms per route, the metric named in the headers), scaling.csv
 * (a row per series and metric with every figure those tables show, and more), report.html's table,
 * and RESULTS.md's rows.
 */
import { stringify } from 'csv-stringify/sync';
import {
  AICC_MARGIN,
  CURVE_RESAMPLES,
  curveFits,
  GROWTH_SHARE,
  MARGINAL_AT,
  MODEL_KINDS,
  type CurveFit,
  type CurveMetric,
  type Model,
} from '../analyse/curve.ts';
import type { Interval } from '../analyse/stats.ts';
import { MIN_CURVE_POINTS, MIN_FIT_POINTS } from '../analyse/scaling.ts';
import { markdownTable } from '../core/format.ts';
import type { ReportContext } from './contract.ts';

export const SCALING_CSV = 'scaling.csv';

/** The curves of a report: its timed cells, with the run's (or the report's) budget. */
export function reportCurves(context: Pick<ReportContext, 'summaries' | 'budgetMs'>): CurveFit[] {
  return curveFits(context.summaries, context.budgetMs !== undefined ? { budgetMs: context.budgetMs } : {});
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** ms per route, three decimals: one unit and one precision in every table. */
export const perRoute = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '–');

/** `value (low to high)`, ms per route (`to`: a bound can be negative). */
export function estimateText(value: number, ci: Interval): string {
  if (!Number.isFinite(value)) return '–';
  return Number.isFinite(ci.low) && Number.isFinite(ci.high)
    ? `${perRoute(value)} (${perRoute(ci.low)} to ${perRoute(ci.high)})`
    : perRoute(value);
}

export function modelText(model: Model | undefined): string {
  if (!model) return '–';
  return model.kind === 'piecewise' ? `piecewise, break at ${thousands(model.breakpoint!)}` : model.kind;
}

/** The marginal cost at N with its interval; `beyond measured N` where N is outside the range (no figure). */
export function marginalText(fit: CurveFit, routes: number): string {
  const m = fit.marginal.find((x) => x.routes === routes);
  if (!m) return '–';
  return m.inRange ? estimateText(m.value, m.ci) : 'beyond measured N';
}

/** A route count of a budget: `none` (1 route passes it), `> MAX` (not reached up to the largest N measured), or the count. */
function budgetRoutes(routes: number, max: number): string {
  if (routes <= 0) return 'none';
  if (!Number.isFinite(routes)) return `> ${thousands(max)}`;
  return thousands(Math.floor(routes));
}

export function budgetText(fit: CurveFit): string {
  if (!fit.budget || !fit.model) return '–';
  const max = fit.routes[fit.routes.length - 1]!;
  const { routes, ci } = fit.budget;
  const point = budgetRoutes(routes, max);
  if (ci.low === ci.high && (ci.low <= 0 || !Number.isFinite(ci.low))) return point;
  return `${point} (${budgetRoutes(ci.low, max)} to ${budgetRoutes(ci.high, max)})`;
}

/** What a metric is called in a header: `first response`, or `ready (listen)`, `ready (init)`, both when a run has both. */
export function metricName(fits: readonly CurveFit[], metric: CurveMetric): string {
  if (metric === 'firstResponse') return 'first response';
  const marks = [...new Set(fits.filter((f) => f.metric === metric).map((f) => f.mark))].sort();
  return `ready (${marks.join(' or ') || 'listen'})`;
}

/**
 * The growth a curve's resamples support: its class, `not determined (k route counts)` below
 * MIN_CURVE_POINTS, or `not determined (CLASS in P %)` when no class holds in GROWTH_SHARE of them
 * (P rounded down, so 94.9 % never reads 95).
 */
export function growthCell(fit: CurveFit): string {
  const g = fit.growth;
  if (!g) return `needs ≥ ${MIN_FIT_POINTS} route counts`;
  if (g.determined) return g.growth;
  if ('routeCounts' in g) return `not determined (${g.routeCounts} route counts)`;
  return `not determined (${g.leading} in ${Math.floor(g.share * 100)} %)`;
}

/**
 * One table per metric, each figure with its 95 % interval in brackets: the model AICc chose, the
 * growth class, the marginal cost at each N (ms/route), the budget.
 */
export function curveTable(fits: readonly CurveFit[], metric: CurveMetric, budgetMs: number | undefined): string {
  const name = metricName(fits, metric);
  const rows = fits
    .filter((f) => f.metric === metric)
    .map((f) => [
      f.series.label,
      modelText(f.model),
      growthCell(f),
      ...MARGINAL_AT.map((n) => (f.model ? marginalText(f, n) : '–')),
      ...(budgetMs !== undefined ? [budgetText(f)] : []),
    ]);
  const headers = [
    'series',
    `${name}: curve`,
    'growth',
    ...MARGINAL_AT.map((n) => `${name}: ms/route at ${thousands(n)} routes`),
    ...(budgetMs !== undefined ? [`${name}: routes within ${thousands(budgetMs)} ms`] : []),
  ];
  return markdownTable(headers, rows, ['left', 'left', 'left', ...MARGINAL_AT.map(() => 'right' as const), 'right']);
}

export const CURVE_NOTE = [
  'Each curve is fitted on every sample (not the medians) of a series by weighted least squares, each sample weighted by 1 / its ' +
    "route count's variance, read from the route counts' standard deviations fitted as a power of their means (the spread grows " +
    'with N; unweighted, the noisiest route counts would steer the fit): ' +
    'a line `a + b·N`, a quadratic `a + b·N + c·N²`, and a piecewise line `a + b·N + d·max(0, N − k)` whose break k is the measured ' +
    `route count inside the range that fits best. A curve is tried only with at least ${MIN_CURVE_POINTS} route counts (through 3 or ` +
    "4 a curve passes whatever the data): with fewer, the line alone. AICc (Akaike's criterion corrected for small samples) chooses; " +
    `a curve must beat the line by more than ${AICC_MARGIN} to be chosen.`,
  "The cost of one more route is the curve's slope (ms per route) at 100, 1,000 and 5,000 routes, given only within the measured " +
    `route counts. The 95 % intervals come from ${thousands(CURVE_RESAMPLES)} bootstrap resamples of the samples within each route count ` +
    '(seeded: the same samples give the same figures), the weights, the choice of model and its fit redone in each, shown in brackets; ' +
    'they hold the uncertainty of the choice and the noise between samples, not a shift of a whole cell. "beyond measured N": that ' +
    "route count lies outside the run's, and no slope is given there.",
  `Growth is claimed only when at least ${GROWTH_SHARE * 100} % of the resamples' curves hold it: **super-linear** (a quadratic's N² ` +
    'term or the change of slope at the break above 0), **sub-linear** (below 0), **linear** (the line), **flat** (the line, its ' +
    'slope\'s interval holding 0). Else "not determined" with the most frequent class and its share, or with the route counts when ' +
    'they are too few for a curve.',
].join('\n\n');

export const BUDGET_NOTE =
  'Route budget (--budget): the route count where the fitted curve, moved by the median of its residuals so that it follows the ' +
  "median rather than the mean, passes the budget. Its interval is the resampled curves' crossings (the same resamples as the " +
  'slopes), widened to hold where the measured medians cross it (read on a straight line between adjacent route counts) and that ' +
  'crossing\'s own resampled interval: it never says less than the medians show. "none" when 1 route passes it already, "> N" when ' +
  'it is not reached up to the largest route count measured.';

/** The curve tables of a report, first response then ready, with their notes; empty when nothing could be fitted. */
export function curveSection(context: Pick<ReportContext, 'summaries' | 'budgetMs'>): string[] {
  const fits = reportCurves(context);
  if (fits.length === 0) return ['_No cell to fit._'];
  return [
    CURVE_NOTE,
    ...(context.budgetMs !== undefined ? ['', BUDGET_NOTE] : []),
    '',
    curveTable(fits, 'firstResponse', context.budgetMs),
    '',
    curveTable(fits, 'ready', context.budgetMs),
    '',
    `The same figures, and each model's AICc and coefficients: [${SCALING_CSV}](${SCALING_CSV}).`,
  ];
}

const csvNumber = (value: number | undefined, digits = 6): number | string =>
  value === undefined || Number.isNaN(value) ? '' : Number.isFinite(value) ? Number(value.toFixed(digits)) : value > 0 ? 'inf' : '-inf';

/** scaling.csv: a row per series and metric, every figure the curve tables show and what they come from. */
export function scalingCsv(context: Pick<ReportContext, 'summaries' | 'budgetMs'>): string {
  const fits = reportCurves(context);
  const header = [
    'series',
    'framework',
    'metric',
    'mark',
    'samples',
    'route_counts',
    'min_routes',
    'max_routes',
    'model',
    'breakpoint_routes',
    'a_ms',
    'b_ms_per_route',
    'c_or_d',
    ...MODEL_KINDS.map((k) => `aicc_${k}`),
    'model_share',
    'growth',
    'growth_share',
    'growth_term',
    'growth_term_ci95_low',
    'growth_term_ci95_high',
    ...MARGINAL_AT.flatMap((n) => [`ms_per_route_at_${n}`, `ms_per_route_at_${n}_ci95_low`, `ms_per_route_at_${n}_ci95_high`]),
    'budget_ms',
    'budget_routes',
    'budget_routes_ci95_low',
    'budget_routes_ci95_high',
  ];
  const rows = fits.map((f) => {
    const [a, b, c] = f.model?.coefficients ?? [];
    return [
      f.series.label,
      f.series.framework,
      f.metric,
      f.mark,
      f.samples,
      f.routes.length,
      f.routes[0] ?? '',
      f.routes[f.routes.length - 1] ?? '',
      f.model?.kind ?? '',
      f.model?.breakpoint ?? '',
      csvNumber(a),
      csvNumber(b),
      csvNumber(c, 12),
      ...MODEL_KINDS.map((k) => csvNumber(f.aicc[k], 3)),
      csvNumber(f.modelShare, 3),
      f.growth ? growthCell(f) : '',
      csvNumber(f.growth && 'share' in f.growth ? f.growth.share : undefined, 3),
      csvNumber(f.term?.value, 12),
      csvNumber(f.term?.ci.low, 12),
      csvNumber(f.term?.ci.high, 12),
      ...MARGINAL_AT.flatMap((n) => {
        const m = f.marginal.find((x) => x.routes === n);
        return m?.inRange ? [csvNumber(m.value, 3), csvNumber(m.ci.low, 3), csvNumber(m.ci.high, 3)] : ['', '', ''];
      }),
      f.budget?.budgetMs ?? '',
      csvNumber(f.budget?.routes, 0),
      csvNumber(f.budget?.ci.low, 0),
      csvNumber(f.budget?.ci.high, 0),
    ];
  });
  return stringify([header, ...rows]);
}
