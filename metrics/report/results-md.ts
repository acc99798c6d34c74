/**
 * RESULTS.md: the published run folders (results/published/) as one Markdown page, in the spirit of
 * the seed's COLD-STARTS.md but with spreads and the machine: per run, framework × routes with ready
 * and first response (median and p25–p75), the first response's cost per added route (from the medians),
 * the Lambda Init estimate and $ per million cold starts where the run has them, and instruction
 * counts for counted cells. Newest run first. Every figure comes from the run folder's own report
 * (loadRun), so `npm run report -- FOLDER` shows where each one comes from.
 */
import { FROM_START_METRICS, quartiles, type CellSummary, type Stats } from '../analyse/aggregate.ts';
import { cellCost } from '../analyse/cost.ts';
import { BASIS_TEXT, headlineOf, type RankedCell, type RankingBasis } from '../analyse/headline.ts';
import { tailsOf } from '../analyse/init-tails.ts';
import { fitLinear, readyMark, seriesOf } from '../analyse/scaling.ts';
import { CURVE_METRICS, MARGINAL_AT } from '../analyse/curve.ts';
import { cellKey } from '../core/cell.ts';
import { growthCell, marginalText, modelText, reportCurves, SCALING_CSV } from './curve-md.ts';
import { estimateCost, extrapolatedMark } from './calibration.ts';
import { coverageLabel } from './code-loading.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import type { ReportContext } from './contract.ts';
import { COUNTED_NAME } from '../core/kinds.ts';

export interface PublishedContext {
  /** the folder's name under results/published/ */
  name: string;
  /** the folder's report; absent when it holds no samples.jsonl */
  context?: ReportContext;
  /** the report files the folder holds (linked when present) */
  files: string[];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** `median (p25–p75)` of a metric's values, ms. */
function spread(stats: Stats | undefined): string {
  if (!stats || stats.values.length === 0) return '–';
  if (stats.values.length < 2) return fixed(stats.median);
  const { p25, p75 } = quartiles(stats);
  return `${fixed(stats.median)} (${fixed(p25)}–${fixed(p75)})`;
}

function millions(value: number | undefined): string {
  return value === undefined ? '–' : `${(value / 1e6).toFixed(1)} M`;
}

function machineLine(meta: NonNullable<ReportContext['meta']>): string {
  const { machine } = meta;
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB, ${machine.os}, node ${meta.runner.node}`;
}

/** The load before the run and while its samples ran, and the other processes' share of the CPU time. */
function loadLine(load: NonNullable<NonNullable<ReportContext['meta']>['load']>): string {
  const others = load.run?.others === undefined ? '' : `; other processes ${Math.round(load.run.others * 100)} % of the CPU time`;
  const during = `${fixed(load.during.load1.min)}–${fixed(load.during.load1.max)}`;
  const busy = load.busy ? ' (busy)' : '';
  return `load (1 min) ${fixed(load.before.load1)} before, ${during} while the samples ran, on ${load.cores} cores${others}${busy}`;
}

/** How a ranked figure reads: ms with one decimal, instructions in millions. */
function rankedValue(cell: RankedCell, basis: RankingBasis): string {
  if (basis === COUNTED_NAME) return millions(cell.value);
  return basis === 'cpu' && cell.wallMs !== undefined ? `${fixed(cell.value)} ms (wall ${fixed(cell.wallMs)})` : `${fixed(cell.value)} ms`;
}

/** The run's ranking at its largest route count and its floor, on the measure that transfers (headline.ts). */
function rankingLines(context: ReportContext): string[] {
  const headline = headlineOf(context.summaries, context.counted);
  if (!headline || headline.ranking.length < 2) return [];
  const { basis, routes, ranking, floor } = headline;
  const order = ranking.map((cell, i) => `${i + 1}. ${markdownText(cell.label)} ${rankedValue(cell, basis)}`).join(' · ');
  const floorText = floor ? `; the floor, node-http at ${floor.routes}: ${rankedValue(floor, basis)}` : '';
  return [`- **Ranking at ${routes} route${routes === 1 ? '' : 's'}**, on ${BASIS_TEXT[basis]}: ${order}${floorText}`];
}

/** The run's header: where it is, when, on what machine and under what load, and the command. */
function runHeader(run: PublishedContext, base: string): string[] {
  const meta = run.context?.meta;
  // the name is from outside: percent-encoded, it can neither end the link nor leave the folder
  const folder = `${base}/${encodeURIComponent(run.name)}/`;
  const links = [`[run folder](${folder})`, ...run.files.map((file) => `[${file}](${folder}${file})`)];
  const lines = [`## ${markdownText(run.name)}`, '', links.join(' · '), ''];
  if (meta) {
    const load = meta.load ? loadLine(meta.load) : 'load not recorded';
    lines.push(
      `- **Started:** ${markdownText(meta.startedAt)}${meta.interrupted ? ' (interrupted: partial results)' : ''}`,
      `- **Machine:** ${markdownText(machineLine(meta))}; ${load}`,
      `- **Command:** ${markdownCode(meta.command)}`,
      ...(run.context ? estimateLine(run.context) : []),
      ...(run.context ? rankingLines(run.context) : []),
      '',
    );
  }
  return lines;
}

/**
 * The cost of one more route on the first response, from the medians: (the median at the series' largest
 * route count − the median at its smallest) ÷ (the difference of the route counts), with the two counts.
 * Not the slope of ready: a handler that defers its routes (fastify lazy) is ready early and pays them at
 * its first response, so ready's slope says almost nothing of what one more route costs it.
 */
function firstResponsePerRoute(series: { cells: readonly CellSummary[] }): string {
  const points = series.cells
    .filter((c) => c.ok > 0 && c.metrics.firstResponse && c.metrics.firstResponse.values.length > 0)
    .map((c) => [c.cell.routes, c.metrics.firstResponse!.median] as const)
    .sort((a, b) => a[0] - b[0]);
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last || last[0] === first[0]) return '–';
  return `${((last[1] - first[1]) / (last[0] - first[0])).toFixed(4)} (${first[0]}→${last[0]})`;
}

/** The timed cells: a row per cell, with the series' first-response cost per added route (firstResponsePerRoute). */
function timedTable(context: ReportContext): string[] {
  const { summaries } = context;
  if (summaries.length === 0) return [];
  const perRoute = new Map<string, string>();
  for (const series of seriesOf(summaries)) {
    const text = firstResponsePerRoute(series);
    for (const cell of series.cells) perRoute.set(cellKey(cell.cell), text);
  }
  const lambda = summaries.some((s) => context.calibration.get(cellKey(s.cell))?.init);
  // startup and listen from the child's first statement (the seed's clock), in runs that have the mark
  const fromStart = summaries.some((s) => s.fromStart);
  const header = [
    'series',
    'routes',
    'ok',
    'startup ms',
    'ready ms',
    ...(fromStart ? FROM_START_METRICS.map((m) => `${m} from start ms`) : []),
    'first response ms',
    'first response ms per route (N→N)',
  ];
  if (lambda) header.push('Lambda Init estimate ms (interval; p95)', '$ per 1M cold starts (interval)');
  const rows = seriesOf(summaries).flatMap((series) =>
    series.cells.map((summary) => {
      const key = cellKey(summary.cell);
      const row = [
        markdownText(series.label),
        String(summary.cell.routes),
        `${summary.ok}/${summary.ok + summary.failed}`,
        // the seed's startup: the app and its routes created (a Lambda handler under the managed runtime has no such mark)
        spread(summary.metrics.startup),
        spread(summary.metrics[readyMark(summary)]),
        ...(fromStart ? FROM_START_METRICS.map((m) => spread(summary.fromStart?.[m])) : []),
        spread(summary.metrics.firstResponse),
        perRoute.get(key) ?? '–',
      ];
      if (lambda) row.push(...lambdaColumns(summary, context));
      return row;
    }),
  );
  return table(header, rows);
}

/**
 * The estimate with its interval and p95, and its cost with the cost's interval; an estimate beyond the
 * evidence carries "beyond evidence: …" on both, and no interval.
 */
function lambdaColumns(summary: CellSummary, context: ReportContext): string[] {
  const calibration = context.calibration.get(cellKey(summary.cell));
  const estimate = calibration?.init?.estimate;
  const p95 = calibration ? tailsOf(calibration).init?.p95 : undefined;
  const interval = calibration?.init?.interval;
  const mark = extrapolatedMark(calibration);
  const cost = calibration ? estimateCost(context, summary, calibration, context.cost.pricePerGBs) : undefined;
  const plain = cost ? undefined : cellCost(summary, context.cost, calibration?.billedEstimate);
  const inBrackets = [
    ...(interval ? [`${fixed(interval.low)}–${fixed(interval.high)}`] : []),
    ...(p95 === undefined ? [] : [`p95 ${fixed(p95)}`]),
  ].join('; ');
  const marked = (text: string) => (mark ? `${text} ${mark}` : text);
  const shown = estimate === undefined ? '–' : marked(`${fixed(estimate)}${inBrackets ? ` (${inBrackets})` : ''}`);
  const costRange = cost?.low !== undefined && cost.high !== undefined ? ` ($${cost.low.toFixed(2)}–$${cost.high.toFixed(2)})` : '';
  const price = cost ? marked(`$${cost.perMillion.toFixed(2)}${costRange}`) : plain ? `$${plain.perMillion.toFixed(2)}` : '–';
  return [shown, price];
}

/**
 * Where a run's Lambda estimates come from, beside them: the calibration table (source and dates), the
 * code-loading term (its coefficient and leave-one-out error) and the architecture the column prices.
 */
function estimateLine(context: ReportContext): string[] {
  const { reference, codeLoading } = context;
  if (!reference || !context.summaries.some((s) => context.calibration.get(cellKey(s.cell))?.init)) return [];
  const architecture = context.calibrations[0]?.architecture ?? 'x86_64';
  const ranges = Object.values(codeLoading?.fit.looErrorPct ?? {});
  const term = codeLoading
    ? ` + the code-loading term: (1 + k) × the Init beyond a hello world measured beside it, taken as a ratio at the ` +
      `fit's speed, less that excess as measured here (k = ${codeLoading.fit.coefficient}, fitted on ${ranges.length} public ` +
      `functions; leave-one-out error ${signed(Math.min(...ranges.map((r) => r[0])))} to ${signed(Math.max(...ranges.map((r) => r[1])))} %)`
    : '';
  return [
    `- **Lambda estimate (${markdownText(architecture)}):** measured here + what Lambda adds to a hello world ` +
      `(${markdownText(reference.source)})${term}; in brackets its interval (the cell's sample spread and the fit's ` +
      `leave-one-out errors; ${coverageLabel(codeLoading, reference.codeLoading !== undefined)}) and its p95; "beyond evidence": ` +
      'no interval, the cell lies F times beyond the largest excess the term was fitted on ("×F on loading") or its INIT has a ' +
      "running part no fitted function had. How it is made and checked: summary.md's Lambda section.",
  ];
}

const signed = (value: number) => `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(1)}`;

/**
 * The cost of one more route as a fitted curve (scaling.md's curve tables): a row per series and
 * metric, first response first, ms per route at each N with its 95 % interval.
 */
function curveRows(context: ReportContext): string[] {
  const curves = reportCurves(context).filter((f) => f.model);
  if (curves.length === 0) return [];
  const ordered = [...curves].sort(
    (a, b) => a.series.label.localeCompare(b.series.label) || CURVE_METRICS.indexOf(a.metric) - CURVE_METRICS.indexOf(b.metric),
  );
  const rows = ordered.map((f) => [
    markdownText(f.series.label),
    f.metric === 'firstResponse' ? 'first response' : `ready (${f.mark})`,
    modelText(f.model),
    growthCell(f),
    ...MARGINAL_AT.map((n) => marginalText(f, n)),
  ]);
  return [
    `**Cost of one more route** (ms per route, 95 % bootstrap interval; the curve AICc chooses on the samples, see ${SCALING_CSV}):`,
    '',
    ...table(['series', 'on', 'curve', 'growth', ...MARGINAL_AT.map((n) => `ms/route at ${n.toLocaleString('en-US')} routes`)], rows),
  ];
}

/** The counted cells: instructions per phase and in all (millions), and the series' instructions per added route (of the total). */
function countedTable(context: ReportContext): string[] {
  const { counted } = context;
  if (counted.length === 0) return [];
  const rows = seriesOf(counted).flatMap((series) => {
    const points = series.cells
      .filter((c) => c.instructions?.total)
      .map((c): [number, number] => [c.cell.routes, c.instructions!.total!.median]);
    const slope = new Set(points.map(([n]) => n)).size >= 3 ? Math.round(fitLinear(points).perRouteMs).toLocaleString('en-US') : '–';
    return series.cells.map((summary) => {
      const figures = summary.instructions ?? {};
      // a framework's start-up ends at listen (a handler: the rest of INIT); an app's has one figure, ready
      const last = figures.listen ?? figures.init ?? figures.ready;
      return [
        markdownText(series.label),
        String(summary.cell.routes),
        ...[figures.boot, figures.import, figures.registration, last, figures.firstRequest, figures.total].map((f) => millions(f?.median)),
        slope,
      ];
    });
  });
  return table(
    ['series', 'routes', 'boot', 'import', 'registration', 'listen, INIT or app start', 'first request', 'total', 'per route'],
    rows,
  );
}

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`), ''];
}

/** The page: every published run, newest first; `base` is the published folder relative to the page. */
export function resultsMarkdown(runs: readonly PublishedContext[], base: string): string {
  const started = (run: PublishedContext) => run.context?.meta?.startedAt ?? run.name;
  const newestFirst = [...runs].sort((a, b) => started(b).localeCompare(started(a)));
  const lines = [
    '# Published results',
    '',
    `Written by \`npm run results:index\` from the run folders in \`${base}/\` (newest first); do not edit by hand:`,
    'a test fails when this page differs from what the command writes. Each run folder holds its raw',
    'samples (samples.jsonl) and meta.json: `npm run report -- FOLDER` recomputes every figure here.',
    'Times are medians with the 25th–75th percentile in parentheses, in ms from spawn; "startup" is the',
    "app and its routes created (the seed's column; a handler under the managed runtime has no such mark);",
    '"ready" is the server listening (a handler: the end of its INIT); "first response ms per route (N→N)" is, per series,',
    '(the median first response at its largest route count − the median at its smallest) ÷ the difference of the two counts',
    '(named in brackets), from the medians; the cost of one more route as the curve it is, on first response and on ready,',
    'is in each run\'s "Cost of one more route" table. "startup from start" and "listen from',
    "start\" are the seed's clock: from the file's first statement, without the runtime's boot (runs whose samples have that",
    'mark). Instruction counts do not depend on the load of the machine, wall times do; but counts grow with the length of',
    'the checkout\u2019s path (express@1 / node-http@1: +4.3 % from a path 50 characters longer, +7.3 % from 115 longer,',
    'measured 2026-12-04; docs/guide/reading-results.md).',
    '',
    'What each figure rests on: a run\u2019s **ranking** rests on CPU time to the first response (the child\u2019s',
    'user + system ms), with wall time beside it, or on instruction counts for a counted run. CPU time transfers',
    'between machines better than wall time; counts transfer only between checkouts at paths of about the same',
    'length (`npm run verify -- results/published/NAME` checks a run\u2019s ratios on yours, counts within \u00b14 %).',
    'The tables\u2019 per-route costs are slopes of wall time (ms) or of instruction counts: compare them within a',
    'run. Each run says its host (CPU, cores, memory, OS, node) and its load before and during.',
    '',
  ];
  if (newestFirst.length === 0) lines.push('No run is published yet.', '');
  for (const run of newestFirst) {
    lines.push(...runHeader(run, base));
    if (run.context) lines.push(...timedTable(run.context), ...curveRows(run.context), ...countedTable(run.context));
    else lines.push('This folder holds no samples.jsonl: nothing to show.', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
