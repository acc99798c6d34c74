/**
 * The charts, as SVG rendered headless by vega (no browser, no canvas) from vega-lite specs:
 * median vs routes with the 95 % CI band per series (firstResponse, listen), log–log, and the
 * stacked phase breakdown per series at one route count.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CellSummary } from '../analyse/aggregate.ts';
import { PHASES, phaseBreakdown, seriesOf, type ScalingMetric } from '../analyse/scaling.ts';

const WIDTH = 640;
const HEIGHT = 400;

/**
 * Render a vega-lite spec to an SVG string (fonts are not measured: vega estimates text widths).
 * vega and vega-lite load on the first chart, not with every command (they take about a second).
 */
/**
 * Whether a curve against the route count has anything to show: some series measured at two route
 * counts or more. A run of one route count (your own app, `--routes 1000`) gets no log-log chart of
 * one point per series: its results table says the same.
 */
export function hasCurve(summaries: CellSummary[]): boolean {
  return seriesOf(summaries).some((series) => new Set(series.cells.filter((s) => s.ok > 0).map((s) => s.cell.routes)).size >= 2);
}

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    // vega escapes markup but passes control characters, which XML forbids (a package folder named with
    // an ESC made chart-attribution.svg ill-formed) and bidi overrides: every chart gets them as spaces
    // eslint-disable-next-line no-control-regex
    const svg = (await view.toSVG()).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
    return svg.endsWith('\n') ? svg : `${svg}\n`;
  } finally {
    view.finalize();
  }
}

/** The look every chart shares. */
export const CHART_CONFIG = {
  background: 'white',
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  title: { fontSize: 16, subtitleFontSize: 12, subtitleColor: '#555', anchor: 'start', offset: 12 },
  axis: { labelFontSize: 12, titleFontSize: 13, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 12, titleFontSize: 13, labelLimit: 320 },
} as const;

const METRIC_TEXT: Record<ScalingMetric, { title: string; axis: string }> = {
  firstResponse: { title: 'Cold start to the first response vs route count', axis: 'firstResponse: ms from spawn (log scale)' },
  listen: { title: 'Cold start to listening vs route count', axis: 'listen: ms from spawn (log scale)' },
};

function noData(title: string, why: string): TopLevelSpec {
  return {
    title: { text: title, subtitle: why },
    config: CHART_CONFIG,
    width: WIDTH,
    height: 80,
    data: { values: [{}] },
    mark: { type: 'text', text: 'no data', fontSize: 14, color: '#888' },
  };
}

/** The 1-2-5 values (…, 50, 100, 200, 500, …) from the last one at or below `low` to the first at or above `high`. */
export function logTicks(low: number, high: number): number[] {
  if (!(low > 0) || !(high >= low)) return [];
  const all: number[] = [];
  for (let decade = 10 ** (Math.floor(Math.log10(low)) - 1); decade <= high * 10; decade *= 10) {
    for (const step of [1, 2, 5]) all.push(Number((step * decade).toPrecision(6)));
  }
  const first = all.findLastIndex((t) => t <= low);
  const last = all.findIndex((t) => t >= high);
  // a single value (one point, no spread) gets a neighbour on each side, so the scale has a range
  const pad = first === last ? 1 : 0;
  return all.slice(Math.max(0, first - pad), last + 1 + pad);
}

export interface CurvePoint {
  series: string;
  routes: number;
  median: number;
  low: number;
  high: number;
  samples: number;
}

export function curvePoints(summaries: CellSummary[], metric: ScalingMetric): CurvePoint[] {
  return seriesOf(summaries).flatMap((series) =>
    series.cells.flatMap((s) => {
      const stats = s.metrics[metric];
      if (!stats) return [];
      return [
        {
          series: series.label,
          routes: s.cell.routes,
          median: stats.median,
          low: stats.ci95?.low ?? stats.median,
          high: stats.ci95?.high ?? stats.median,
          samples: stats.n,
        },
      ];
    }),
  );
}

/** Median vs routes, one line per series, 95 % CI band, log axes. */
export function curveSpec(summaries: CellSummary[], metric: ScalingMetric): TopLevelSpec {
  const text = METRIC_TEXT[metric];
  const values = curvePoints(summaries, metric);
  if (values.length === 0) return noData(text.title, 'no successful sample in this run');
  const labels = [...new Set(values.map((v) => v.series))];
  const routes = [...new Set(values.map((v) => v.routes))].sort((a, b) => a - b);
  const yTicks = logTicks(Math.min(...values.map((v) => v.low)), Math.max(...values.map((v) => v.high)));
  const yScale = { type: 'log' as const, domain: [yTicks[0]!, yTicks[yTicks.length - 1]!], nice: false };
  // ticks at the measured N, and 1-2-5 ms ticks over the data: every gridline labelled
  const x = {
    field: 'routes',
    type: 'quantitative',
    title: 'routes (N, log scale)',
    scale: { type: 'log' },
    axis: { format: ',', values: routes },
  } as const;
  // ten colours repeat past ten series (two frameworks in one colour): take twenty then
  const color = {
    field: 'series',
    type: 'nominal',
    title: 'framework',
    scale: { domain: labels, scheme: labels.length > 10 ? 'tableau20' : 'tableau10' },
  } as const;
  // the band's colour has no legend of its own: the legend shows the lines
  const bandColor = { ...color, legend: null } as const;
  return {
    title: { text: text.title, subtitle: 'median of the successful samples per cell; shaded band: 95 % bootstrap CI of the median' },
    config: CHART_CONFIG,
    width: WIDTH,
    height: HEIGHT,
    data: { values: values as unknown as Record<string, unknown>[] },
    encoding: { x },
    layer: [
      {
        mark: { type: 'area', opacity: 0.18 },
        encoding: {
          y: { field: 'low', type: 'quantitative', title: text.axis, scale: yScale, axis: { format: ',', values: yTicks } },
          y2: { field: 'high' },
          color: bandColor,
        },
      },
      {
        mark: { type: 'line', point: { size: 40 }, strokeWidth: 2 },
        encoding: { y: { field: 'median', type: 'quantitative', title: text.axis, scale: yScale }, color },
      },
    ],
    resolve: { legend: { color: 'independent' } },
  };
}

/** Stacked phases per series at one route count. */
export function phasesSpec(summaries: CellSummary[], routes: number | undefined): TopLevelSpec {
  const title = routes === undefined ? 'Where the cold start goes' : `Where the cold start goes at N = ${routes} routes`;
  const rows = seriesOf(summaries).flatMap((series) => {
    const cell = series.cells.find((s) => s.cell.routes === routes);
    const phases = cell && phaseBreakdown(cell);
    if (!phases) return [];
    return PHASES.map((phase, order) => ({ series: series.label, phase: phase.name, order, ms: phases[phase.name] }));
  });
  if (rows.length === 0) return noData(title, 'no successful sample at this route count');
  return {
    title: {
      text: title,
      subtitle: 'median of the per-sample duration of each phase; the stack is close to, not exactly, the firstResponse median',
    },
    config: CHART_CONFIG,
    width: WIDTH,
    height: Math.max(140, 44 * new Set(rows.map((r) => r.series)).size),
    data: { values: rows },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'series', type: 'nominal', title: 'framework', sort: null },
      ...stackedPhases(),
    },
  };
}

/** The x axis, colours and order of a phases chart: each phase's median stacked from spawn, in the phases' order (SVG and report.html). */
export function stackedPhases() {
  const names = PHASES.map((p) => p.name);
  return {
    x: {
      field: 'ms',
      type: 'quantitative',
      title: 'ms since spawn (median of each phase, stacked)',
      stack: 'zero',
      axis: { format: ',.0f' },
    },
    color: { field: 'phase', type: 'nominal', title: 'phase', scale: { domain: names }, sort: names },
    order: { field: 'order', type: 'ordinal' },
  } as const;
}

export function curveChart(summaries: CellSummary[], metric: ScalingMetric): Promise<string> {
  return renderSvg(curveSpec(summaries, metric));
}

export function phasesChart(summaries: CellSummary[], routes: number | undefined): Promise<string> {
  return renderSvg(phasesSpec(summaries, routes));
}
