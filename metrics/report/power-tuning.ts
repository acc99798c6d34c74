/**
 * The power-tuning view in a report: the table (a row per framework × routes, a column per memory
 * size, the cheapest size, the fastest within +10 % of its cost, the smallest that ran) and the
 * vega-lite spec of its chart (cold start and $ per million against memory size).
 */
import type { TopLevelSpec } from 'vega-lite';
import { MB_PER_VCPU, REQUEST_PRICE_PER_MILLION } from '../core/lambda-platform.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import {
  API_GATEWAY_TIMEOUT_MS,
  BUDGET_SHARE,
  coldStartCost,
  INIT_LIMIT_MS,
  powerTuning,
  ran,
  type PowerCell,
  type PowerPrice,
  type PowerRow,
  type PowerSize,
} from '../analyse/power-tuning.ts';
import { CELL_DIMENSIONS, cellKey } from '../core/cell.ts';
import { markdownTable, ms, round3, type Align } from '../core/format.ts';
import { CHART_CONFIG, logTicks, renderSvg } from './charts.ts';
import type { CsvColumn, MarkdownSection, ReportContext } from './contract.ts';
import { dollars } from '../core/format.ts';
import { beyondEvidenceText } from '../analyse/estimate-interval.ts';
import { BEYOND_EVIDENCE_NOTE, coverageLabel } from './code-loading.ts';

const INIT_MARK = '†';
const RESPONSE_MARK = '‡';

function marks(size: PowerSize): string {
  const beyond = size.beyondEvidence ? ` ${size.beyondEvidence}` : '';
  return `${size.initOverLimit ? ` ${INIT_MARK}` : ''}${size.responseOverLimit ? ` ${RESPONSE_MARK}` : ''}${beyond}`;
}

/** An estimate's interval in brackets (" (1074–1924)"), or '' (a measured figure, or an estimate beyond its evidence). */
function range(interval: { low: number; high: number } | undefined, text: (value: number) => string): string {
  return interval ? ` (${text(interval.low)}–${text(interval.high)})` : '';
}

function sizeText(size: PowerSize | undefined): string {
  if (!size) return '';
  if (size.outOfMemory) return 'out of memory';
  if (!ran(size)) return '–';
  return (
    `${ms(size.firstResponseMs)} ms${range(size.interval, ms)} · ` +
    `${dollars(size.costPerMillion)}${range(size.costInterval, dollars)}${marks(size)}`
  );
}

function choiceText(row: PowerRow, memoryMB: number | undefined): string {
  const size = row.sizes.find((s) => s.memoryMB === memoryMB);
  if (!size || !ran(size)) return '–';
  return (
    `${size.memoryMB} MB (${dollars(size.costPerMillion)}${range(size.costInterval, dollars)}, ` +
    `${ms(size.firstResponseMs)} ms${range(size.interval, ms)})${marks(size)}`
  );
}

/** The power-tuning table: one row per framework × routes, a column per memory size, the three choices, then a legend. */
export function powerTuningMarkdown(rows: PowerRow[], price: PowerPrice, coverage = ''): string {
  if (rows.length === 0) return '_No cell was measured at a Lambda memory size._';
  const memories = [...new Set(rows.flatMap((r) => r.sizes.map((s) => s.memoryMB)))].sort((a, b) => a - b);
  const headers = ['framework', 'routes', ...memories.map((m) => `${m} MB`), 'cheapest', 'fastest within +10 %', 'smallest that ran'];
  const align: Align[] = ['left', 'right', ...memories.map((): Align => 'right'), 'left', 'left', 'left'];
  const body = rows.map((row) => [
    row.framework,
    String(row.routes),
    ...memories.map((m) => sizeText(row.sizes.find((s) => s.memoryMB === m))),
    choiceText(row, row.cheapest),
    choiceText(row, row.fastestWithinBudget),
    row.smallestThatRan === undefined ? 'none' : `${row.smallestThatRan} MB`,
  ]);
  const requests = price.includeRequests ? ` + $${REQUEST_PRICE_PER_MILLION} per million requests` : '';
  const legend = [
    `Each cell: median cold start (spawn → first response) · $ per million cold starts = ms / 1000 × MB / 1024 × ` +
      `$${price.pricePerGBs} per GB-s × 10^6${requests}. "fastest within +10 %": the fastest size costing at most ` +
      `${Math.round(BUDGET_SHARE * 100)} % more than the cheapest. Sizes that ran out of memory are left out of every choice.`,
    `${INIT_MARK} INIT over ${INIT_LIMIT_MS / 1000} s (Lambda's on-demand INIT limit) · ${RESPONSE_MARK} first response over ` +
      `${API_GATEWAY_TIMEOUT_MS / 1000} s (the HTTP API's integration timeout; a REST API's is 29 s).`,
    ...(rows.some((r) => r.sizes.some((s) => s.interval))
      ? [
          "A Lambda estimate's cold start is its Billed estimate (Init and Duration estimates, each rounded up to 1 ms, as " +
            `the Lambda section prices it); in brackets its interval and the cost at its ends${coverage ? ` (${coverage})` : ''}.`,
        ]
      : []),
    ...(rows.some((r) => r.sizes.some((s) => s.beyondEvidence !== undefined))
      ? [`${BEYOND_EVIDENCE_NOTE} (the evidence column of the Lambda section)`]
      : []),
  ];
  return `${markdownTable(headers, body, align)}\n\n${legend.join('\n\n')}`;
}

export interface PowerPoint {
  series: string;
  memoryMB: number;
  ms: number;
  dollars: number;
}

export function powerPoints(rows: PowerRow[]): PowerPoint[] {
  return rows.flatMap((row) =>
    row.sizes.filter(ran).map((s) => ({
      series: `${row.framework} · ${row.routes} routes`,
      memoryMB: s.memoryMB,
      ms: s.firstResponseMs,
      dollars: s.costPerMillion,
    })),
  );
}

const WIDTH = 640;
const PANEL_HEIGHT = 260;

/** A log-scale y encoding of `field` with the given ticks. */
function logY(field: 'ms' | 'dollars', title: string, ticks: number[], format: string) {
  return {
    field,
    type: 'quantitative' as const,
    title,
    scale: { type: 'log' as const, domain: [ticks[0]!, ticks.at(-1)!], nice: false },
    axis: { values: ticks, format },
  };
}

/** The HTTP API's integration timeout as a dashed rule, labelled at the smallest memory size `x`. */
function gatewayTimeout(x: number) {
  const text = `HTTP API timeout, ${API_GATEWAY_TIMEOUT_MS / 1000} s`;
  return [
    { mark: { type: 'rule' as const, strokeDash: [4, 4], color: '#b00' }, encoding: { y: { datum: API_GATEWAY_TIMEOUT_MS } } },
    {
      mark: { type: 'text' as const, align: 'left' as const, dx: 4, dy: -6, color: '#b00', text },
      encoding: { y: { datum: API_GATEWAY_TIMEOUT_MS }, x: { datum: x } },
    },
  ];
}

/**
 * Cold-start time and $ per million cold starts against memory size, one line per framework ×
 * routes, log axes; the HTTP API's 30 s integration timeout as a dashed rule when the time axis reaches it. No config
 * (fonts, legend width): the caller adds the one its other charts use.
 */
export function powerTuningSpec(rows: PowerRow[]): TopLevelSpec {
  const values = powerPoints(rows);
  const title = 'Cold start and its cost against Lambda memory size';
  if (values.length === 0) {
    const subtitle = 'no cell ran at a memory size';
    return { title: { text: title, subtitle }, width: WIDTH, height: 80, data: { values: [{}] }, mark: { type: 'text', text: 'no data' } };
  }
  const memories = [...new Set(values.map((v) => v.memoryMB))].sort((a, b) => a - b);
  const labels = [...new Set(values.map((v) => v.series))];
  const ticksOf = (field: 'ms' | 'dollars') => logTicks(Math.min(...values.map((v) => v[field])), Math.max(...values.map((v) => v[field])));
  const msTicks = ticksOf('ms');
  const dollarTicks = ticksOf('dollars');
  const gatewayRule = API_GATEWAY_TIMEOUT_MS >= msTicks[0]! && API_GATEWAY_TIMEOUT_MS <= msTicks.at(-1)!;
  const memoryScale = { type: 'log' as const, domain: [memories[0]!, memories.at(-1)!], nice: false, padding: 12 };
  const memoryAxis = { values: memories, format: ',' };
  const x = { field: 'memoryMB', type: 'quantitative' as const, title: 'Lambda memory, MB (log)', scale: memoryScale, axis: memoryAxis };
  const scheme = labels.length > 10 ? 'tableau20' : 'tableau10';
  const color = {
    field: 'series',
    type: 'nominal',
    title: 'framework · routes',
    scale: { domain: labels, scheme },
    legend: { labelLimit: 400, titleLimit: 400 },
  } as const;
  const line = { type: 'line', point: { size: 40 }, strokeWidth: 2 } as const;
  return {
    title: {
      text: title,
      subtitle:
        `median per cell; INIT at full CPU, the first request at memory / ${MB_PER_VCPU} vCPUs; ` +
        'sizes that ran out of memory are absent',
    },
    data: { values: values as unknown as Record<string, unknown>[] },
    vconcat: [
      {
        width: WIDTH,
        height: PANEL_HEIGHT,
        layer: [
          {
            mark: line,
            encoding: {
              x,
              y: logY('ms', 'cold start: ms from spawn to first response (log)', msTicks, ','),
              color,
            },
          },
          ...(gatewayRule ? gatewayTimeout(memories[0]!) : []),
        ],
      },
      {
        width: WIDTH,
        height: PANEL_HEIGHT,
        mark: line,
        encoding: {
          x,
          y: logY('dollars', '$ per million cold starts (log)', dollarTicks, '$,.3~f'),
          color,
        },
      },
    ],
    resolve: { scale: { color: 'shared' } },
  };
}

/** The power-tuning cells of a run: every cell run at a memory size, labelled by framework and the other varying dimensions. */
export function powerCells(summaries: CellSummary[], calibration?: ReportContext['calibration']): PowerCell[] {
  const sized = summaries.filter((s) => s.cell.memory > 0 && !s.unsupported);
  // every dimension but the chart's own (the framework names the series, memory is the axis) and routes
  const chart = (d: string) => d === 'framework' || d === 'memory' || d === 'routes';
  const varying = CELL_DIMENSIONS.filter((d) => !chart(d) && new Set(sized.map((s) => s.cell[d])).size > 1);
  return sized.map((s) => {
    const extras = varying.map((d) => `${d}=${s.cell[d]}`);
    const estimate = calibration?.get(cellKey(s.cell));
    const initMs = estimate?.init?.estimate ?? (s.metrics.init ?? s.metrics.listen)?.median;
    // an estimate's cold start is what the Lambda section prices: its Billed estimate, each part rounded up as Lambda bills
    const firstResponseMs = estimate?.billedEstimate ?? s.metrics.firstResponse?.median;
    const beyond = beyondEvidenceText(estimate?.init);
    return {
      framework: extras.length ? `${s.cell.framework} [${extras.join(', ')}]` : s.cell.framework,
      routes: s.cell.routes,
      memoryMB: s.cell.memory,
      ...(firstResponseMs !== undefined ? { firstResponseMs } : {}),
      ...(initMs !== undefined ? { initMs } : {}),
      outOfMemory: s.errors.some((e) => /^out of memory at /.test(e.reason)),
      ...(estimate?.billedEstimate !== undefined && estimate.billedInterval && !beyond ? { interval: estimate.billedInterval } : {}),
      ...(beyond ? { beyondEvidence: beyond } : {}),
    };
  });
}

function priceOf(context: ReportContext): PowerPrice {
  // every cold start on Lambda is a request too
  return { pricePerGBs: context.cost.pricePerGBs, includeRequests: true };
}

export const POWER_TUNING_CHART = 'chart-power-tuning.svg';

export function hasPowerTuning(context: ReportContext): boolean {
  return context.summaries.some((s) => s.cell.memory > 0);
}

export function powerTuningChart(context: ReportContext): Promise<string> {
  return renderSvg({
    ...powerTuningSpec(powerTuning(powerCells(context.summaries, context.calibration), priceOf(context))),
    config: CHART_CONFIG,
  });
}

export function powerTuningSection(context: ReportContext): MarkdownSection | undefined {
  if (!hasPowerTuning(context)) return undefined;
  const price = priceOf(context);
  const rows = powerTuning(powerCells(context.summaries, context.calibration), price);
  const estimated = [...context.calibration.values()].some((c) => c.billedEstimate !== undefined);
  const limits = context.meta?.spec.limits;
  const how = limits
    ? `Each sample ran in its own cgroup (${limits.kind ?? 'cgroup'}) with the memory size as its memory limit, ` +
      `${limits.initCpus ?? '?'} vCPUs during INIT (spawn → ready line, or → the first \`next\`) ` +
      `and memory / ${MB_PER_VCPU} vCPUs after it, in quota periods of ${(limits.cpuPeriodUs ?? 0) / 1000} ms.`
    : 'Each cell ran at its memory size.';
  return {
    title: 'Power tuning: cold starts by Lambda memory size',
    body:
      `${how} Lambda gives a function CPU in proportion to its memory (a full vCPU at ${MB_PER_VCPU} MB), ` +
      'so work a framework defers to the first request slows down with the share, while INIT runs at full speed.' +
      (estimated
        ? ' Local Lambda cells with a calibrated estimate show the **estimate** on Lambda (Init + Duration estimates) and its cost, ' +
          `not the figure measured here (calibrated on real data from ${context.reference?.from} to ${context.reference?.to}).`
        : '') +
      `\n\n![power tuning](${POWER_TUNING_CHART})\n\n` +
      powerTuningMarkdown(rows, price, coverageLabel(context.codeLoading, context.reference?.codeLoading !== undefined)),
  };
}

/**
 * summary.csv's power-tuning figures of every cell run at a memory size (the table's "ms · $" of that
 * size): its cold start (a local Lambda cell's estimate, Init + Duration) and its $ per million.
 */
export function powerTuningCsvColumns(context: ReportContext): CsvColumn[] {
  if (!hasPowerTuning(context)) return [];
  const price = priceOf(context);
  const figure = (s: CellSummary) => powerCells([s], context.calibration)[0];
  return [
    { header: 'power_tuning_first_response_ms', value: (s) => round3(figure(s)?.firstResponseMs) },
    {
      header: 'power_tuning_cost_per_million_usd',
      value: (s) => {
        const cell = figure(s);
        return cell?.firstResponseMs === undefined || cell.outOfMemory
          ? ''
          : round3(coldStartCost(cell.firstResponseMs, cell.memoryMB, price));
      },
    },
  ];
}

/**
 * The power-tuning table's intervals (issue 47), after every older column: the cold start's interval and the cost at its
 * ends for an estimate within its evidence ('' otherwise). Beyond it, estimate_beyond_evidence (calibration.ts) says why.
 */
export function powerTuningIntervalCsvColumns(context: ReportContext): CsvColumn[] {
  if (!hasPowerTuning(context)) return [];
  const price = priceOf(context);
  const interval = (s: CellSummary) => powerCells([s], context.calibration)[0]?.interval;
  const cost = (s: CellSummary, end: 'low' | 'high') => {
    const cell = powerCells([s], context.calibration)[0];
    return cell?.interval && !cell.outOfMemory ? round3(coldStartCost(cell.interval[end], cell.memoryMB, price)) : '';
  };
  return [
    { header: 'power_tuning_first_response_low_ms', value: (s) => round3(interval(s)?.low) },
    { header: 'power_tuning_first_response_high_ms', value: (s) => round3(interval(s)?.high) },
    { header: 'power_tuning_cost_per_million_usd_low', value: (s) => cost(s, 'low') },
    { header: 'power_tuning_cost_per_million_usd_high', value: (s) => cost(s, 'high') },
  ];
}
