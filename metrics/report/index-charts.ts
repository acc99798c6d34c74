/**
 * The charts of results/index.html, one per question the page answers, each from the published run
 * that is the one to quote for it (analyse/headline.ts runsToQuote): the first response against the
 * routes per framework (a server's cold start), the Lambda $ per million cold starts with its interval,
 * and what to change (each lever's median ratio to its base). Rendered to SVG by vega here (charts.ts),
 * so the page carries them inline and draws offline with no script. Every mark carries its figures in
 * its accessible description (`aria-label`): a reader with a screen reader hears them, and the browser
 * test reads them back and checks them against the run folders.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CellSummary } from '../analyse/aggregate.ts';
import { QUESTIONS } from '../analyse/headline.ts';
import { seriesOf } from '../analyse/scaling.ts';
import { cellKey } from '../core/cell.ts';
import type { RunMeta } from '../core/meta.ts';
import { estimateCost, extrapolatedMark } from './calibration.ts';
import { CHART_CONFIG, curvePoints, logTicks, renderSvg } from './charts.ts';
import type { ReportContext } from './contract.ts';
import { seriesStyle } from './html-charts.ts';
import { leverEffects, varyingLevers } from './levers.ts';

/** A published run as the index reads it: its name, its report and the questions it is the one to quote for. */
export interface ChartedRun {
  name: string;
  meta: RunMeta | undefined;
  context?: ReportContext;
  quote?: string[];
}

/** A chart of the page: the question it answers, the run it is drawn from, and its SVG. */
export interface IndexChart {
  /** the element id of its figure: `chart-<id>` */
  id: 'first-response' | 'lambda-cost' | 'levers';
  question: string;
  run: string;
  svg: string;
}

const WIDTH = 560;
const routesText = (routes: number) => `${routes} route${routes === 1 ? '' : 's'}`;
const HEIGHT = 320;

/** The series' colours as report.html gives them (Okabe–Ito's eight, told apart with colour-vision deficiencies). */
function colorScale(labels: string[]): { domain: string[]; range: string[] } {
  return { domain: labels, range: labels.map((_, i) => seriesStyle(i).color) };
}

/** Past eight series the colours repeat: the line's dash then tells the series apart, as in report.html. */
function dashOf(labels: string[]) {
  return {
    field: 'series',
    type: 'nominal',
    title: 'framework',
    scale: { domain: labels, range: labels.map((_, i) => [...seriesStyle(i).dash]) },
  } as const;
}

function routesAxis(routes: number[]) {
  return {
    field: 'routes',
    type: 'quantitative',
    title: 'routes (log scale)',
    scale: { type: 'log' },
    axis: { format: ',', values: routes },
  } as const;
}

/** What a point says, read aloud and read back: `fastify, 5000 routes: first response 2708.3 ms (95 % CI 2650.1–2790.4)`. */
function firstResponseLabel(series: string, routes: number, median: number, low: number, high: number): string {
  return `${series}, ${routesText(routes)}: first response ${median.toFixed(1)} ms (95 % CI ${low.toFixed(1)}–${high.toFixed(1)})`;
}

/**
 * The two charts' shared encoding: the series' labels, a log-scale y on `field` whose ticks span every point's
 * interval (low to high), and a colour per series.
 */
function logSeriesEncoding(points: { series: string; low: number; high: number }[], field: string, title: string, format: string) {
  const labels = [...new Set(points.map((p) => p.series))];
  const ticks = logTicks(Math.min(...points.map((p) => p.low)), Math.max(...points.map((p) => p.high)));
  const scale = { type: 'log' as const, domain: [ticks[0]!, ticks[ticks.length - 1]!], nice: false };
  const y = { field, type: 'quantitative', title, scale, axis: { format, values: ticks } } as const;
  const color = { field: 'series', type: 'nominal', title: 'framework', scale: colorScale(labels) } as const;
  return { labels, y, color };
}

/** Question 1: the median first response against the routes, a line per framework with its 95 % CI band (log–log). */
function firstResponseSpec(summaries: CellSummary[], run: string): TopLevelSpec | undefined {
  const points = curvePoints(summaries, 'firstResponse').map((p) => ({
    ...p,
    description: firstResponseLabel(p.series, p.routes, p.median, p.low, p.high),
  }));
  const routes = [...new Set(points.map((p) => p.routes))].sort((a, b) => a - b);
  if (routes.length < 2) return undefined;
  const { labels, y, color } = logSeriesEncoding(points, 'median', 'first response: ms from spawn (log scale)', ',');
  return {
    title: { text: 'First response against routes, per framework', subtitle: `${run}: median per cell; band: its 95 % bootstrap CI` },
    config: CHART_CONFIG,
    width: WIDTH,
    height: HEIGHT,
    data: { values: points },
    encoding: { x: routesAxis(routes) },
    layer: [
      {
        mark: { type: 'area', opacity: 0.15, aria: false },
        encoding: { y: { ...y, field: 'low' }, y2: { field: 'high' }, color: { ...color, legend: null } },
      },
      { mark: { type: 'line', strokeWidth: 2, aria: false }, encoding: { y, color, strokeDash: dashOf(labels) } },
      {
        mark: { type: 'point', filled: true, size: 40 },
        encoding: { y, color: { ...color, legend: null }, description: { field: 'description' } },
      },
    ],
    // one legend, the line's: its colour and its dash (the band's and the points' colour have none)
    resolve: { legend: { color: 'independent', strokeDash: 'independent' } },
  };
}

/**
 * `fastify, 5000 routes: $90.25 per million cold starts (no interval) beyond evidence: ×1.85 on loading, running part
 * unvalidated`: a Lambda point, read aloud and read back.
 */
function lambdaCostLabel(series: string, routes: number, cost: { perMillion: number; low?: number; high?: number }, mark: string): string {
  const interval =
    cost.low !== undefined && cost.high !== undefined ? ` ($${cost.low.toFixed(2)}–$${cost.high.toFixed(2)})` : ' (no interval)';
  return `${series}, ${routesText(routes)}: $${cost.perMillion.toFixed(2)} per million cold starts${interval}${mark ? ` ${mark}` : ''}`;
}

/**
 * Question 2: the $ per million cold starts on Lambda (the Init and Billed estimates priced as RESULTS.md
 * prices them), a point per cell with its interval as a vertical line; a cross where the estimate is
 * beyond its evidence (no interval: beyond the excesses the code-loading term was fitted on, or a running part
 * no calibration function had split).
 */
function lambdaCostSpec(summaries: CellSummary[], context: ReportContext, run: string): TopLevelSpec | undefined {
  const points = seriesOf(summaries).flatMap((series) =>
    series.cells.flatMap((summary) => {
      const calibration = context.calibration.get(cellKey(summary.cell));
      const cost = calibration ? estimateCost(context, summary, calibration, context.cost.pricePerGBs) : undefined;
      if (!calibration || !cost) return [];
      const mark = extrapolatedMark(calibration);
      return [
        {
          series: series.label,
          routes: summary.cell.routes,
          perMillion: cost.perMillion,
          low: cost.low ?? cost.perMillion,
          high: cost.high ?? cost.perMillion,
          evidence: mark ? 'beyond evidence' : 'within the fit',
          description: lambdaCostLabel(series.label, summary.cell.routes, cost, mark),
        },
      ];
    }),
  );
  if (points.length === 0) return undefined;
  const routes = [...new Set(points.map((p) => p.routes))].sort((a, b) => a - b);
  const { labels, y, color } = logSeriesEncoding(points, 'perMillion', '$ per million cold starts (log scale)', '$,');
  return {
    title: {
      text: 'Lambda: $ per million cold starts',
      subtitle: `${run}: the Init and Billed estimates priced; vertical line: the estimate's interval; cross: beyond evidence, no interval`,
    },
    config: CHART_CONFIG,
    width: WIDTH,
    height: HEIGHT,
    data: { values: points },
    encoding: { x: routesAxis(routes) },
    layer: [
      {
        mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.6, aria: false },
        encoding: { y: { ...y, field: 'low' }, y2: { field: 'high' }, color: { ...color, legend: null } },
      },
      { mark: { type: 'line', strokeWidth: 1.5, opacity: 0.6, aria: false }, encoding: { y, color, strokeDash: dashOf(labels) } },
      {
        mark: { type: 'point', filled: true, size: 50 },
        encoding: {
          y,
          color: { ...color, legend: null },
          shape: {
            field: 'evidence',
            type: 'nominal',
            title: 'estimate',
            scale: { domain: ['within the fit', 'beyond evidence'], range: ['circle', 'cross'] },
          },
          description: { field: 'description' },
        },
      },
    ],
    resolve: { legend: { color: 'independent', strokeDash: 'independent' } },
  };
}

/** `fastify: build=bundle 0.62× the first response of build=plain (median of 6 comparisons)`: a lever's bar, read aloud and read back. */
function leverLabel(framework: string, lever: string, base: string, ratio: number, comparisons: number): string {
  const over = `median of ${comparisons} comparison${comparisons === 1 ? '' : 's'}`;
  return `${framework}: ${lever} ${ratio.toFixed(2)}× the first response of ${base} (${over})`;
}

/** Question 3: what to change: each lever value's median ratio of the first response to its base, per framework; below 1 it helps. */
function leversSpec(summaries: CellSummary[], meta: RunMeta | undefined, run: string): TopLevelSpec | undefined {
  if (varyingLevers(summaries).length === 0) return undefined;
  const frameworks = [...new Set(summaries.map((s) => s.cell.framework))];
  const rows = frameworks.flatMap((framework) =>
    leverEffects(framework, summaries, meta).map((e) => {
      const lever = `${e.dimension}=${e.value}`;
      const base = `${e.dimension}=${e.base}`;
      return { framework, lever, ratio: e.ratio, description: leverLabel(framework, lever, base, e.ratio, e.comparisons) };
    }),
  );
  if (rows.length === 0) return undefined;
  // the levers that help most first; the axis spans every ratio and 1, at least 0.8–1.2, in steps of 0.05
  const best = (lever: string) => Math.min(...rows.filter((r) => r.lever === lever).map((r) => r.ratio));
  const levers = [...new Set(rows.map((r) => r.lever))].sort((a, b) => best(a) - best(b));
  const ratios = rows.map((r) => r.ratio);
  const domain = [Math.floor(Math.min(0.8, ...ratios) * 20) / 20, Math.ceil(Math.max(1.2, ...ratios) * 20) / 20];
  return {
    title: {
      text: 'What to change: each lever against its base',
      subtitle: `${run}: median ratio of the first response (wall) to the base's; below 1 the lever helps`,
    },
    config: CHART_CONFIG,
    width: WIDTH,
    height: { step: 14 },
    data: { values: rows },
    encoding: {
      y: { field: 'lever', type: 'nominal', title: 'lever', sort: levers, axis: { grid: false } },
      yOffset: { field: 'framework', type: 'nominal', sort: frameworks },
    },
    layer: [
      {
        mark: { type: 'bar' },
        encoding: {
          x: {
            field: 'ratio',
            type: 'quantitative',
            title: 'first response, ratio to the base (1 = no change)',
            scale: { domain, zero: false },
            axis: { format: '.2f' },
          },
          x2: { datum: 1 },
          color: { field: 'framework', type: 'nominal', title: 'framework', scale: colorScale(frameworks) },
          description: { field: 'description' },
        },
      },
      { mark: { type: 'rule', color: '#333', aria: false }, encoding: { x: { datum: 1 } } },
    ],
  };
}

/** The run quoted for a question, with the cells that answer it. */
function quotedFor(
  runs: readonly ChartedRun[],
  index: number,
): { run: ChartedRun & { context: ReportContext }; cells: CellSummary[] } | undefined {
  const { question, fits } = QUESTIONS[index]!;
  const run = runs.find((r) => r.quote?.includes(question));
  if (!run?.context) return undefined;
  const cells = fits({ name: run.name, summaries: run.context.summaries, counted: run.context.counted, busy: false, samples: 0 });
  return cells.length ? { run: { ...run, context: run.context }, cells: [...cells] } : undefined;
}

/** The page's charts: one per question a published run answers, in the questions' order; none without a run that answers it. */
export async function indexCharts(runs: readonly ChartedRun[]): Promise<IndexChart[]> {
  const charts: IndexChart[] = [];
  const add = async (
    id: IndexChart['id'],
    index: number,
    spec: (cells: CellSummary[], run: ChartedRun & { context: ReportContext }) => TopLevelSpec | undefined,
  ) => {
    const quoted = quotedFor(runs, index);
    const made = quoted && spec(quoted.cells, quoted.run);
    if (quoted && made) charts.push({ id, question: QUESTIONS[index]!.question, run: quoted.run.name, svg: await renderSvg(made) });
  };
  await add('first-response', 0, (cells, run) => firstResponseSpec(cells, run.name));
  await add('lambda-cost', 1, (cells, run) => lambdaCostSpec(cells, run.context, run.name));
  await add('levers', 3, (cells, run) => leversSpec(cells, run.meta, run.name));
  return charts;
}
