/**
 * Comparing two runs on chosen metrics: a wall-time mark (`firstResponse`, `listen`, …: ms from
 * the runner's spawn call) or the child's CPU time at a mark, named `cpu.<mark>` (`cpu.firstResponse`:
 * user + system ms the child had used once its first answer was written; the name is the path of
 * the figure in samples.jsonl). Per cell present in both runs: the ratio of medians B/A and a
 * two-sided Mann-Whitney U p-value on the samples; a change is marked only when p < 0.05.
 *
 * Wall time moves with whatever else the machine runs; CPU time barely does. recommendCpu() says
 * when the two runs' recorded machine load differed enough that a wall-time comparison misleads.
 */
import type { CellSummary, Stats } from './aggregate.ts';
import { cellKey, compareCells, type Cell } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { loadPerCore, type LoadSummary } from '../core/load.ts';
import { CPU_METRICS, METRICS, type CpuMetric, type Metric } from '../core/samples.ts';
import { mannWhitneyU } from './stats.ts';
import {
  DEFAULT_INSTRUCTION_THRESHOLD,
  INSTRUCTION_FIGURE_TEXT,
  INSTRUCTION_FIGURES,
  relativeSpread,
  type InstructionFigure,
} from './instructions.ts';
import { isCounted } from '../core/dimensions.ts';
import { COUNTED_NAME } from '../core/kinds.ts';

export const ALPHA = 0.05;
/** The two runs' median load per core differ by more than this: compare CPU times. */
export const LOAD_PER_CORE_DIFFERENCE = 0.5;

export type CpuMetricName = `cpu.${CpuMetric}`;
/** Runs with --first-hits: the pooled latency of the first request to each further route, and when all were warm (ms from spawn). */
export const FIRST_HIT_METRICS = ['firstHits.latency', 'firstHits.allWarm'] as const;
export type FirstHitMetricName = (typeof FIRST_HIT_METRICS)[number];
/** Counted cells: `instructions` (the total to the first answer) or `instructions.<phase>`. */
export type InstructionMetricName = 'instructions' | `instructions.${InstructionFigure}`;
/** A wall-time metric as samples.jsonl names it under `marks`, `cpu.<mark>` for the child's CPU time, or an instruction count. */
export type MetricName = Metric | CpuMetricName | InstructionMetricName | FirstHitMetricName;
export const DEFAULT_COMPARE_METRIC: MetricName = 'firstResponse';
export const METRIC_NAMES: readonly MetricName[] = [
  ...METRICS,
  ...CPU_METRICS.map((m): CpuMetricName => `cpu.${m}`),
  ...FIRST_HIT_METRICS,
  'instructions',
  ...INSTRUCTION_FIGURES.filter((f) => f !== 'total').map((f): InstructionMetricName => `instructions.${f}`),
];

export function isInstructionMetric(name: MetricName): name is InstructionMetricName {
  return name === COUNTED_NAME || name.startsWith(`${COUNTED_NAME}.`);
}

function instructionFigure(name: InstructionMetricName): InstructionFigure {
  return name === COUNTED_NAME ? 'total' : (name.slice(`${COUNTED_NAME}.`.length) as InstructionFigure);
}

export type Verdict = 'regression' | 'improvement' | 'no significant change' | 'not comparable';

export interface CompareRow {
  cell: Cell;
  metric: MetricName;
  a: Stats | undefined;
  b: Stats | undefined;
  /** median B / median A */
  ratio: number | undefined;
  p: number | undefined;
  verdict: Verdict;
  /** a significant regression above the fail-above ratio */
  fails: boolean;
  /** with these sample counts no difference could reach p < 0.05 */
  tooFew: boolean;
  /** instruction counts: the share a count had to move by to be a change (the threshold, or more when the cells' own spread is wider) */
  threshold?: number;
  /**
   * not comparable although a side has successful samples: which side did not record the metric
   * (first hits of a 1-route cell, CPU in an older run)
   */
  notRecorded?: string;
}

/** Which side has successful samples but no figure for the metric, in words; undefined when none. */
function notRecordedIn(sides: [string, CellSummary][], metric: MetricName): string | undefined {
  const missing = sides.filter(([, s]) => s.ok > 0 && !statsOf(s, metric)).map(([side]) => side);
  return missing.length ? `${missing.join(' and ')} recorded no ${metric}` : undefined;
}

export interface Comparison {
  /** the metrics compared, in the order asked */
  metrics: readonly MetricName[];
  rows: CompareRow[];
  onlyA: Cell[];
  onlyB: Cell[];
  failAbove: number | undefined;
  /** the threshold of instruction metrics */
  instructionThreshold: number;
}

export function isCpuMetric(name: MetricName): name is CpuMetricName {
  return name.startsWith('cpu.');
}

/** `--metric`: one of METRIC_NAMES, or a UsageError listing them. */
export function parseMetricName(text: string): MetricName {
  const name = text.trim();
  if (!(METRIC_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`--metric: "${text}" is not one of ${METRIC_NAMES.join(', ')}`);
  }
  return name as MetricName;
}

/** What the metric measures, for the comparison's heading. */
export function metricDescription(name: MetricName): string {
  if (isInstructionMetric(name)) return `instructions counted under valgrind, ${INSTRUCTION_FIGURE_TEXT[instructionFigure(name)]}`;
  if (name === 'firstHits.latency') return 'wall time of the first request to each further route (ms, every first hit of every sample)';
  if (name === 'firstHits.allWarm') return "wall time until every first hit was answered (ms from the runner's spawn call)";
  return isCpuMetric(name)
    ? `CPU time of the child at ${name.slice(4)} (user + system ms since its process started)`
    : `wall time to ${name} (ms from the runner's spawn call)`;
}

/** A cell's statistics for the metric; undefined when the run did not record it (older runs have no CPU). */
export function statsOf(summary: CellSummary, name: MetricName): Stats | undefined {
  if (isInstructionMetric(name)) return summary.instructions?.[instructionFigure(name)];
  if (name === 'firstHits.latency') return summary.firstHits?.latencyMs;
  if (name === 'firstHits.allWarm') return summary.firstHits?.allWarmMs;
  return isCpuMetric(name) ? summary.cpu?.[name.slice(4) as CpuMetric] : summary.metrics[name];
}

/** The smallest two-sided p-value an exact test of sizes m and n can give: 2 / C(m + n, m). */
export function minimumP(m: number, n: number): number {
  let c = 1;
  for (let i = 1; i <= Math.min(m, n); i++) c = (c * (m + n - Math.min(m, n) + i)) / i;
  return Math.min(1, 2 / c);
}

export function compareRow(cell: Cell, metric: MetricName, a: Stats | undefined, b: Stats | undefined, failAbove?: number): CompareRow {
  if (!a || !b) return { cell, metric, a, b, ratio: undefined, p: undefined, verdict: 'not comparable', fails: false, tooFew: false };
  const ratio = a.median > 0 ? b.median / a.median : undefined;
  const { p } = mannWhitneyU(a.values, b.values);
  const significant = p < ALPHA;
  const verdict: Verdict =
    !significant || ratio === undefined || ratio === 1 ? 'no significant change' : ratio > 1 ? 'regression' : 'improvement';
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

/**
 * A row of an instruction count: counts are deterministic up to a small spread, so no test of
 * samples: a change is a ratio beyond the threshold, widened to twice the larger relative spread of
 * the two cells when their repeated counts differed more than that.
 */
export function compareCountRow(
  cell: Cell,
  metric: MetricName,
  a: Stats | undefined,
  b: Stats | undefined,
  threshold: number,
  failAbove?: number,
): CompareRow {
  if (!a || !b) return { cell, metric, a, b, ratio: undefined, p: undefined, verdict: 'not comparable', fails: false, tooFew: false };
  const ratio = a.median > 0 ? b.median / a.median : undefined;
  const limit = Math.max(threshold, 2 * relativeSpread(a), 2 * relativeSpread(b));
  const verdict: Verdict =
    ratio === undefined || Math.abs(ratio - 1) <= limit ? 'no significant change' : ratio > 1 ? 'regression' : 'improvement';
  const fails = verdict === 'regression' && failAbove !== undefined && ratio !== undefined && ratio > failAbove;
  return { cell, metric, a, b, ratio, p: undefined, verdict, fails, tooFew: false, threshold: limit };
}

/** Every cell in both runs × every metric asked for; the cells in one run only are listed. */
export function compareSummaries(
  a: CellSummary[],
  b: CellSummary[],
  metrics: readonly MetricName[] = [DEFAULT_COMPARE_METRIC],
  failAbove?: number,
  instructionThreshold = DEFAULT_INSTRUCTION_THRESHOLD,
): Comparison {
  const inA = new Map(a.map((s) => [cellKey(s.cell), s]));
  const inB = new Map(b.map((s) => [cellKey(s.cell), s]));
  const both = a.filter((s) => inB.has(cellKey(s.cell))).sort((x, y) => compareCells(x.cell, y.cell));
  return {
    metrics,
    // instruction metrics belong to counted cells, times to timed ones
    rows: both.flatMap((sa) =>
      metrics
        .filter((metric) => isInstructionMetric(metric) === isCounted(sa.cell))
        .map((metric) => {
          const sb = inB.get(cellKey(sa.cell))!;
          const row = isInstructionMetric(metric)
            ? compareCountRow(sa.cell, metric, statsOf(sa, metric), statsOf(sb, metric), instructionThreshold, failAbove)
            : compareRow(sa.cell, metric, statsOf(sa, metric), statsOf(sb, metric), failAbove);
          const notRecorded =
            row.verdict === 'not comparable'
              ? notRecordedIn(
                  [
                    ['A', sa],
                    ['B', sb],
                  ],
                  metric,
                )
              : undefined;
          return notRecorded ? { ...row, notRecorded } : row;
        }),
    ),
    onlyA: a
      .filter((s) => !inB.has(cellKey(s.cell)))
      .map((s) => s.cell)
      .sort(compareCells),
    onlyB: b
      .filter((s) => !inA.has(cellKey(s.cell)))
      .map((s) => s.cell)
      .sort(compareCells),
    failAbove,
    instructionThreshold,
  };
}

/**
 * Why a gate (`--fail-above`) decided nothing, or undefined when it compared something: no cell has
 * the metrics in both runs (other cells, other names, counted against timed runs). A CI gate that
 * compared nothing must not pass.
 */
export function emptyGate(comparison: Comparison): string | undefined {
  if (comparison.failAbove === undefined || comparison.rows.some((r) => r.verdict !== 'not comparable')) return undefined;
  const what = comparison.metrics.join(', ');
  const why = comparison.rows.length
    ? `no cell in both runs recorded ${what}`
    : `no cell in both runs has ${what} (instruction metrics compare counted cells, time metrics timed ones)`;
  return `--fail-above: nothing to gate: ${why}; the comparison without --fail-above shows the cells`;
}

/**
 * A one-line recommendation to compare CPU time instead of wall time, when the runs' recorded load
 * says wall times are not comparable: one run was busy, or their median load per core differs by
 * more than 0.5. Undefined when nothing was recorded against it (runs without a load record say nothing).
 */
export function recommendCpu(a: LoadSummary | undefined, b: LoadSummary | undefined): string | undefined {
  const busy = [a?.busy ? 'A' : '', b?.busy ? 'B' : ''].filter(Boolean);
  const advice = 'compare on cpu.firstResponse (--metric cpu.firstResponse)';
  if (busy.length) return `the machine was busy while ${busy.join(' and ')} ran: wall times are inflated there; ${advice}`;
  if (!a || !b) return undefined;
  const perCoreA = loadPerCore(a);
  const perCoreB = loadPerCore(b);
  if (Math.abs(perCoreA - perCoreB) > LOAD_PER_CORE_DIFFERENCE) {
    const loads = `${perCoreA.toFixed(2)} per core in A, ${perCoreB.toFixed(2)} in B`;
    return `the machine load differed (${loads}): wall times are not comparable; ${advice}`;
  }
  return undefined;
}
