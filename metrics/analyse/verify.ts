/**
 * `verify`'s judgement: which of a published run's ratios hold on another machine. A claim is the
 * ratio of one cell's median to the floor's (the cheapest cell of the slice, node-http at its
 * smallest route count when the run has it) on one metric: "fastify@5000 / node-http@1 first
 * response: 12.3×". Ratios, not absolute times, are what can transfer between machines. Each side's
 * ratio has a 95 % percentile-bootstrap interval over both of its cells' samples (seeded: the same
 * samples give the same interval); a claim holds when the two intervals overlap. Instruction counts
 * are deterministic to a small spread, so their intervals are widened by half the comparison
 * threshold on each side (a claim on counts holds when the ratios agree within about the threshold).
 */
import seedrandom from 'seedrandom';
import { median, quantileSorted } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import { isInstructionMetric, statsOf, type MetricName } from './compare.ts';
import { DEFAULT_INSTRUCTION_THRESHOLD } from './instructions.ts';
import { BOOTSTRAP_RESAMPLES, CI_LEVEL, type Interval } from './stats.ts';
import { cellKey, cellLabel, compareCells, type Cell } from '../core/cell.ts';

/** The framework whose smallest cell is the floor of every ratio, when the run has it. */
export const FLOOR_FRAMEWORK = 'node-http';

/** Every claim's ratio, on one side (published or here). */
export interface RatioEstimate {
  ratio: number;
  interval: Interval;
  /** the samples behind it: the cell's and the floor's */
  n: [number, number];
}

export type ClaimVerdict = 'holds' | 'does not hold' | 'not measured';

export interface Claim {
  cell: Cell;
  floor: Cell;
  metric: MetricName;
  published: RatioEstimate | undefined;
  here: RatioEstimate | undefined;
  verdict: ClaimVerdict;
  /** not measured: why */
  why?: string;
}

/**
 * The percentile-bootstrap interval of median(a) / median(b): `resamples` resamples of each with
 * replacement from seedrandom(seed). One value on a side is taken as it is (a count).
 */
export function ratioInterval(
  a: readonly number[],
  b: readonly number[],
  seed: string,
  resamples = BOOTSTRAP_RESAMPLES,
  level = CI_LEVEL,
): RatioEstimate | undefined {
  if (a.length === 0 || b.length === 0) return undefined;
  const denominator = median([...b]);
  if (!(denominator > 0)) return undefined;
  const ratio = median([...a]) / denominator;
  const random = seedrandom(seed);
  const draw = (values: readonly number[]) => {
    if (values.length === 1) return values[0]!;
    const resample = Array.from(values, () => values[Math.floor(random() * values.length)]!);
    return median(resample);
  };
  const ratios: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const below = draw(b);
    if (below > 0) ratios.push(draw(a) / below);
  }
  ratios.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  const interval = ratios.length
    ? { low: quantileSorted(ratios, tail), high: quantileSorted(ratios, 1 - tail) }
    : { low: ratio, high: ratio };
  return { ratio, interval, n: [a.length, b.length] };
}

/** An interval widened by `share` of its ends (instruction counts: half the threshold on each side). */
function widened(interval: Interval, share: number): Interval {
  return { low: interval.low * (1 - share), high: interval.high * (1 + share) };
}

/** Whether two intervals share a point. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.low <= b.high && b.low <= a.high;
}

/** The interval a claim is judged on: counts' widened by half the threshold. */
export function judgedInterval(estimate: RatioEstimate, metric: MetricName, threshold = DEFAULT_INSTRUCTION_THRESHOLD): Interval {
  return isInstructionMetric(metric) ? widened(estimate.interval, threshold / 2) : estimate.interval;
}

/**
 * The floor of a slice of cells: node-http at its smallest route count when it is there, else the
 * cell with the smallest median on `metric` (ties: the first in table order).
 */
export function floorOf(summaries: readonly CellSummary[], metric: MetricName): CellSummary | undefined {
  const measured = summaries.filter((s) => statsOf(s, metric));
  const nodeHttp = measured.filter((s) => s.cell.framework === FLOOR_FRAMEWORK).sort((a, b) => a.cell.routes - b.cell.routes);
  if (nodeHttp.length) return nodeHttp[0];
  return [...measured].sort((a, b) => statsOf(a, metric)!.median - statsOf(b, metric)!.median || compareCells(a.cell, b.cell))[0];
}

/**
 * The claims of `cells` (the slice verified) on `metrics`: each cell's ratio to the floor in the
 * published run and here, and whether they hold. A cell or a floor not measured here (failed
 * samples, a metric not recorded) is `not measured`, never `holds`.
 */
export function judgeClaims(
  cells: readonly Cell[],
  floor: Cell,
  published: readonly CellSummary[],
  here: readonly CellSummary[],
  metrics: readonly MetricName[],
  threshold = DEFAULT_INSTRUCTION_THRESHOLD,
): Claim[] {
  const byKey = (list: readonly CellSummary[]) => new Map(list.map((s) => [cellKey(s.cell), s]));
  const inPublished = byKey(published);
  const inHere = byKey(here);
  const floorKey = cellKey(floor);
  const estimate = (side: Map<string, CellSummary>, cell: Cell, metric: MetricName, seed: string) => {
    const a = side.get(cellKey(cell));
    const b = side.get(floorKey);
    const sa = a && statsOf(a, metric);
    const sb = b && statsOf(b, metric);
    return sa && sb ? ratioInterval(sa.values, sb.values, seed) : undefined;
  };
  return [...cells]
    .filter((cell) => cellKey(cell) !== floorKey)
    .sort(compareCells)
    .flatMap((cell) =>
      metrics.map((metric): Claim => {
        const seed = `verify ${cellKey(cell)} / ${floorKey} ${metric}`;
        const p = estimate(inPublished, cell, metric, seed);
        const h = estimate(inHere, cell, metric, seed);
        const base = { cell, floor, metric, published: p, here: h };
        if (!p) return { ...base, verdict: 'not measured', why: `the published run has no ${metric} of ${cellLabel(cell)} and the floor` };
        if (!h) return { ...base, verdict: 'not measured', why: `no ${metric} of ${cellLabel(cell)} and the floor was measured here` };
        const holds = overlaps(judgedInterval(p, metric, threshold), judgedInterval(h, metric, threshold));
        return { ...base, verdict: holds ? 'holds' : 'does not hold' };
      }),
    );
}

/** The slice `verify` measures by default: for each framework its smallest and largest route count, and the floor. */
export function defaultSlice(summaries: readonly CellSummary[], floor: Cell): Cell[] {
  const byFramework = new Map<string, Cell[]>();
  for (const s of summaries) byFramework.set(s.cell.framework, [...(byFramework.get(s.cell.framework) ?? []), s.cell]);
  const chosen = new Map<string, Cell>([[cellKey(floor), floor]]);
  for (const cells of byFramework.values()) {
    const sorted = [...cells].sort((a, b) => a.routes - b.routes);
    for (const cell of [sorted[0]!, sorted[sorted.length - 1]!]) chosen.set(cellKey(cell), cell);
  }
  return [...chosen.values()].sort(compareCells);
}
