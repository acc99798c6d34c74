/**
 * summary.csv: one row per cell with every headline statistic, written with csv-stringify. The
 * child's CPU times come after the older columns (`cpu_<metric>_…_ms`; absent for runs recorded
 * without them), then the counted cells' instructions, then startup and listen from the child's
 * first statement (`<metric>_from_start_…_ms`), then the counted cells' estimated cycles, then their estimated ms (runs
 * that recorded the fit), so a reader of the older columns finds each where it was.
 */
import { stringify } from 'csv-stringify/sync';
import { shownDimensions, type Cell } from '../core/cell.ts';
import { FROM_START_METRICS, type CellSummary, type Stats } from '../analyse/aggregate.ts';
import { HEADLINE_METRICS } from '../core/samples.ts';
import { round3 } from '../core/format.ts';
import type { CsvColumn } from './contract.ts';
import { estimatedMs } from '../analyse/proxy-fit.ts';
import type { TimeEstimateMeta } from '../core/meta.ts';
import { INSTRUCTION_FIGURES, relativeSpread, type InstructionFigure } from '../analyse/instructions.ts';

const STATS = ['median', 'mean', 'stddev', 'min', 'max'] as const;

/** Per headline metric: the five statistics, the 95 % CI of the median and the MAD outlier count. */
function metricColumns(metric: string): string[] {
  return [...STATS.map((stat) => `${metric}_${stat}_ms`), `${metric}_ci95_low_ms`, `${metric}_ci95_high_ms`, `${metric}_outliers`];
}

function metricValues(stats: Stats | undefined): (number | '')[] {
  return [
    ...STATS.map((stat) => round3(stats?.[stat])),
    round3(stats?.ci95?.low),
    round3(stats?.ci95?.high),
    stats ? stats.outliers.length : '',
  ];
}

/** The columns after the cell's dimensions. */
const FIGURE_COLUMNS = [
  'file',
  'samples',
  'failures',
  ...HEADLINE_METRICS.flatMap(metricColumns),
  'rss_median_bytes',
  'heap_used_median_bytes',
  'invalid_body',
  'runtime_version',
  'status',
];

/** The columns of a run whose cells leave every optional dimension (target, memory) at its default. */
export const SUMMARY_CSV_COLUMNS = [...shownDimensions([]), ...FIGURE_COLUMNS];

/** The same statistics as wall time, for the child's CPU time at each headline metric. */
export const CPU_CSV_COLUMNS = HEADLINE_METRICS.flatMap((metric) => metricColumns(`cpu_${metric}`));

/**
 * startup and listen from the child's first statement (`start` mark) rather than from spawn, the
 * seed's clock: `startup_from_start_median_ms`…, last, only in runs whose samples have the mark.
 */
export const FROM_START_CSV_COLUMNS = FROM_START_METRICS.flatMap((metric) => metricColumns(`${metric}_from_start`));

/** Counted cells' columns (only in runs that have them): the median instructions of each phase, and the total's range and spread. */
function instructionCsvColumns(figures: readonly InstructionFigure[]): string[] {
  return [
    ...figures.map((figure) => `instructions_${figure}_median`),
    'instructions_total_min',
    'instructions_total_max',
    'instructions_total_spread',
  ];
}

/** The figures with a column: `ready` (an app server's start-up) only in runs that counted one, so older runs keep their columns. */
function csvFigures(summaries: readonly CellSummary[]): InstructionFigure[] {
  const ready = summaries.some((s) => s.instructions?.ready);
  return INSTRUCTION_FIGURES.filter((figure) => figure !== 'ready' || ready);
}

function instructionValues(summary: CellSummary, figures: readonly InstructionFigure[]): (number | '')[] {
  const stats = summary.instructions;
  const whole = (value: number | undefined) => (value === undefined ? '' : Math.round(value));
  const total = stats?.total;
  return [
    ...figures.map((figure) => whole(stats?.[figure]?.median)),
    whole(total?.min),
    whole(total?.max),
    total ? Math.round(relativeSpread(total) * 1e6) / 1e6 : '',
  ];
}

/** Cells counted under --cache-sim (only in runs that have them, last): the median estimated cycles of each phase. */
function cycleCsvColumns(figures: readonly InstructionFigure[]): string[] {
  return figures.map((figure) => `cycles_${figure}_median`);
}

function cycleValues(summary: CellSummary, figures: readonly InstructionFigure[]): (number | '')[] {
  return figures.map((figure) => {
    const median = summary.cycles?.[figure]?.median;
    return median === undefined ? '' : Math.round(median);
  });
}

/**
 * Counted runs that recorded the fit their estimate uses (meta.json `timeEstimate`; older runs have none, and keep
 * their columns), last: the CPU time to the first answer the cell's count stands for by that fit, a model, not a
 * measurement; `…_beyond_fit` is `yes` for a cell beyond the fit's evidence (a count larger than its largest cell's, or
 * a framework, target or runtime it was not fitted on).
 */
export const ESTIMATE_CSV_COLUMNS = ['estimated_cpu_firstResponse_ms', 'estimated_cpu_firstResponse_beyond_fit'];

function estimateValues(summary: CellSummary, fit: TimeEstimateMeta): (number | string)[] {
  const estimate = estimatedMs(summary, fit);
  return estimate ? [round3(estimate.ms), estimate.beyond ? 'yes' : 'no'] : ['', ''];
}

/** measured (some sample answered), failed (none did) or unsupported (the runtime cannot run that cell: no figures, no failure). */
export function cellStatus(summary: CellSummary): 'measured' | 'failed' | 'unsupported' {
  if (summary.unsupported) return 'unsupported';
  return summary.ok > 0 ? 'measured' : 'failed';
}

export function invalidBodyText(summary: CellSummary): string {
  if (!summary.invalidBody) return 'not checked';
  return summary.invalidBody.ok ? `rejected ${summary.invalidBody.status}` : `FAILED: ${summary.invalidBody.reason}`;
}

/**
 * `shown`: the dimension columns of a set of cells (the table's shownDimensions; a test passes those
 * of a table with a row more).
 */
export function summaryCsv(
  summaries: CellSummary[],
  fileOf: (s: CellSummary) => string,
  extra: CsvColumn[] = [],
  shown: (cells: readonly Cell[]) => readonly string[] = shownDimensions,
  timeEstimate?: TimeEstimateMeta,
): string {
  // a run recorded without CPU times keeps the columns it always had
  const withCpu = summaries.some((s) => s.cpu && Object.keys(s.cpu).length > 0);
  const withCounts = summaries.some((s) => s.instructions);
  const withFromStart = summaries.some((s) => s.fromStart);
  const withCycles = summaries.some((s) => s.cycles);
  const figures = csvFigures(summaries);
  const dimensions = shown(summaries.map((s) => s.cell));
  const rows = summaries.map((s) => [
    ...dimensions.map((d) => (s.cell as Readonly<Record<string, string | number>>)[d]),
    fileOf(s),
    s.ok,
    s.failed,
    ...HEADLINE_METRICS.flatMap((metric) => metricValues(s.metrics[metric])),
    s.rssMedian ?? '',
    s.heapUsedMedian ?? '',
    invalidBodyText(s),
    s.runtimeVersion ?? '',
    cellStatus(s),
    ...extra.map((c) => c.value(s)),
    ...(withCpu ? HEADLINE_METRICS.flatMap((metric) => metricValues(s.cpu?.[metric])) : []),
    ...(withCounts ? instructionValues(s, figures) : []),
    ...(withFromStart ? FROM_START_METRICS.flatMap((metric) => metricValues(s.fromStart?.[metric])) : []),
    ...(withCycles ? cycleValues(s, figures) : []),
    ...(timeEstimate ? estimateValues(s, timeEstimate) : []),
  ]);
  return stringify(rows, {
    header: true,
    // text from outside (a child's answer in invalid_body, imported names) never starts a spreadsheet formula
    escape_formulas: true,
    columns: [
      ...dimensions,
      ...FIGURE_COLUMNS,
      ...extra.map((c) => c.header),
      ...(withCpu ? CPU_CSV_COLUMNS : []),
      ...(withCounts ? instructionCsvColumns(figures) : []),
      ...(withFromStart ? FROM_START_CSV_COLUMNS : []),
      ...(withCycles ? cycleCsvColumns(figures) : []),
      ...(timeEstimate ? ESTIMATE_CSV_COLUMNS : []),
    ],
  });
}
