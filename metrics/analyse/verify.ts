/**
 * `verify`'s judgement: whether a published run's ratios hold on another machine, as an equivalence
 * test. A claim is the ratio of one cell's median to the floor's (the cheapest cell of the slice,
 * node-http at its smallest route count when the run has it) on one metric: "fastify@5000 /
 * node-http@1 first response: 12.3×". Ratios, not absolute times, are what can transfer between
 * machines.
 *
 * The verdict is on the ratio of ratios, published / here, and its percentile-bootstrap interval:
 * each resample draws all four sample sets (the cell and the floor, published and here) with
 * replacement, from one seeded generator (the same samples give the same interval). The interval is
 * the two-sided 90 % one, which is two one-sided tests at 5 % each (TOST), judged against a margin
 * (default ±15 %, symmetric on the ratio's scale: between 1/1.15 and 1.15):
 * - **holds** when the whole interval lies inside the margin (equivalent within it);
 * - **does not hold** when it lies wholly outside (the published ratio differs by more than the margin);
 * - **undetermined** otherwise: the samples cannot tell; how many a cell would likely decide is said.
 * Its power (the smallest change caught in 80 % of trials at the default samples) comes from a
 * simulation in the suite (test/unit/verify-power.test.ts), stated in docs/guide/reading-results.md.
 * Instruction counts are deterministic but for the checkout's path, whose length moves them: their
 * margin is COUNT_MARGIN, which covers another clone (see COUNT_SAME_PATH_EFFECT).
 */
import seedrandom from 'seedrandom';
import { median, probit, quantileSorted, variance } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import { isInstructionMetric, statsOf, type MetricName } from './compare.ts';
import { BOOTSTRAP_RESAMPLES, type Interval } from './stats.ts';
import { cellKey, cellLabel, compareCells, type Cell } from '../core/cell.ts';

/** The framework whose smallest cell is the floor of every ratio, when the run has it. */
export const FLOOR_FRAMEWORK = 'node-http';

/** The equivalence margin of timed claims: published / here within ±15 % (1/1.15 to 1.15). */
export const DEFAULT_MARGIN = 0.15;
/** The interval judged: 90 % two-sided, that is two one-sided tests at 5 % each (TOST). */
export const VERDICT_LEVEL = 0.9;
/**
 * Counts (under valgrind, --predictable, fixed seeds) are deterministic on one checkout, but move with
 * the length of the checkout's path: express@1 / node-http@1 counted from checkouts at paths of 10, 60
 * and 125 characters was 4.488, 4.682 (+4.3 %) and 4.817 (+7.3 %); from the 10-character path, within
 * 0.42 % of the published figures (express@1 the furthest of six cells). An audit from another clone
 * found up to 3.6 % (express@1). No margin covers every path: COUNT_MARGIN covers a clone at a path
 * about 45 characters longer (the slope from 10 to 60), and a --margin narrower than COUNT_SAME_PATH_EFFECT is refused.
 */
export const COUNT_SAME_PATH_EFFECT = 0.005;
/** The margin of claims on counts: another clone's 3.6 % (the audit), rounded up. */
export const COUNT_MARGIN = 0.04;
/** What a claim on counts that does not hold may also mean. */
export const COUNT_PATH_NOTE =
  "or this checkout's path differs in length from the published run's by more than about 45 characters: counts grow with it " +
  '(express@1 / node-http@1: +4.3 % from a path 50 characters longer, +7.3 % from one 115 longer)';
/** Beyond this many samples a cell, "more samples" is no advice: said as "more than" it. */
export const MAX_SAMPLES_ADVICE = 200;

/** One side's claim (published or here): the ratio of medians and its bootstrap interval. */
export interface RatioEstimate {
  ratio: number;
  interval: Interval;
  /** the samples behind it: the cell's and the floor's */
  n: [number, number];
}

/** The ratio of ratios, published / here, and the interval the verdict is read from. */
export interface Agreement {
  ratio: number;
  interval: Interval;
  /** the bootstrap variance of log(ratio) of each side: what samples here can still shrink, and what they cannot */
  logVariance: { published: number; here: number };
}

export type ClaimVerdict = 'holds' | 'does not hold' | 'undetermined' | 'not measured';

export interface Claim {
  cell: Cell;
  floor: Cell;
  metric: MetricName;
  published: RatioEstimate | undefined;
  here: RatioEstimate | undefined;
  agreement?: Agreement;
  /** the margin it was judged against (a share: 0.15) */
  margin: number;
  verdict: ClaimVerdict;
  /** not measured: why */
  why?: string;
  /**
   * undetermined: about how many samples a cell here would decide it if the ratio stayed where it is
   * (capped at MAX_SAMPLES_ADVICE + 1), or 'none' when the published run's own spread is wider than the margin allows
   */
  samplesNeeded?: number | 'none';
}

/** The sorted values and a scratch array, for resampling one set's median by counts per rank, O(n). */
interface Resampler {
  sorted: Float64Array;
  counts: Int32Array;
}

function resampler(values: readonly number[]): Resampler {
  return { sorted: Float64Array.from(values).sort(), counts: new Int32Array(values.length) };
}

/** The median of one resample with replacement (one value: itself), from the counts per rank. */
function resampledMedian({ sorted, counts }: Resampler, random: () => number): number {
  const n = sorted.length;
  if (n === 1) return sorted[0]!;
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[Math.floor(random() * n)]!++;
  // the values at positions mid − 1 and mid of the sorted resample
  const mid = n >> 1;
  let lower: number | undefined;
  let seen = 0;
  for (let k = 0; k < n; k++) {
    seen += counts[k]!;
    if (lower === undefined && seen > mid - 1) lower = sorted[k]!;
    if (seen > mid) return n % 2 ? sorted[k]! : (lower! + sorted[k]!) / 2;
  }
  return sorted[n - 1]!;
}

export interface SampleSets {
  published: { cell: readonly number[]; floor: readonly number[] };
  here: { cell: readonly number[]; floor: readonly number[] };
}

/** The percentile interval at `level` of values on the log scale (sorted in place), back on the ratio's scale. */
function logInterval(logs: Float64Array, level: number): Interval {
  const sorted = Array.from(logs.sort());
  const tail = (1 - level) / 2;
  return { low: Math.exp(quantileSorted(sorted, tail)), high: Math.exp(quantileSorted(sorted, 1 - tail)) };
}

/**
 * Both sides' ratios and their ratio, published / here, each with its percentile-bootstrap interval
 * at `level`: `resamples` draws of the four sets from seedrandom.alea(seed), on the log scale.
 * Undefined when a set is empty, when a median is not above 0, or when fewer than half the
 * resamples give a ratio (a resampled median of 0).
 */
export function agreementOf(
  sets: SampleSets,
  seed: string,
  level = VERDICT_LEVEL,
  resamples = BOOTSTRAP_RESAMPLES,
): { published: RatioEstimate; here: RatioEstimate; agreement: Agreement } | undefined {
  const all = [sets.published.cell, sets.published.floor, sets.here.cell, sets.here.floor];
  if (all.some((values) => values.length === 0 || !(median([...values]) > 0))) return undefined;
  const [pc, pf, hc, hf] = all.map(resampler) as [Resampler, Resampler, Resampler, Resampler];
  const random = seedrandom.alea(seed);
  let published = new Float64Array(resamples);
  let here = new Float64Array(resamples);
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    const p = Math.log(resampledMedian(pc, random) / resampledMedian(pf, random));
    const h = Math.log(resampledMedian(hc, random) / resampledMedian(hf, random));
    // a resampled median of 0 (a sample of 0 ms): the ratio is not a number and says nothing
    if (!Number.isFinite(p) || !Number.isFinite(h)) continue;
    published[kept] = p;
    here[kept++] = h;
  }
  if (kept < resamples / 2) return undefined;
  published = published.subarray(0, kept);
  here = here.subarray(0, kept);
  const agreement = published.map((p, r) => p - here[r]!);
  const logVariance = { published: variance(Array.from(published)), here: variance(Array.from(here)) };
  const ratio = (side: SampleSets['published']) => median([...side.cell]) / median([...side.floor]);
  const estimate = (side: SampleSets['published'], logs: Float64Array): RatioEstimate => ({
    ratio: ratio(side),
    interval: logInterval(logs, level),
    n: [side.cell.length, side.floor.length],
  });
  return {
    published: estimate(sets.published, published),
    here: estimate(sets.here, here),
    agreement: {
      ratio: ratio(sets.published) / ratio(sets.here),
      interval: logInterval(agreement, level),
      logVariance,
    },
  };
}

/** The verdict on an interval of published / here against a margin (a share: 0.15 is 1/1.15 to 1.15). */
export function verdictOf(interval: Interval, margin: number): 'holds' | 'does not hold' | 'undetermined' {
  const [low, high] = [1 / (1 + margin), 1 + margin];
  if (interval.low >= low && interval.high <= high) return 'holds';
  if (interval.high < low || interval.low > high) return 'does not hold';
  return 'undetermined';
}

/**
 * About how many samples a cell here would decide an undetermined claim, were the ratio to stay
 * where it is and the spread here to shrink as 1/√n: the interval's half-width (on the log scale)
 * must come under the distance from the ratio to the margin's nearest end. 'none' when the
 * published side's spread alone is too wide for that (no number of samples here would do).
 */
export function samplesNeeded(agreement: Agreement, margin: number, samplesHere: number, level = VERDICT_LEVEL): number | 'none' {
  const z = probit(1 - (1 - level) / 2);
  const distance = Math.abs(Math.abs(Math.log(agreement.ratio)) - Math.log(1 + margin));
  const room = (distance / z) ** 2 - agreement.logVariance.published;
  if (!(room > 0)) return 'none';
  const needed = Math.ceil((samplesHere * agreement.logVariance.here) / room);
  return Math.min(Math.max(needed, samplesHere + 1), MAX_SAMPLES_ADVICE + 1);
}

/** The margin a claim on `metric` is judged against: counts' covers the checkout path; timed claims' is `margin`. */
export function marginOf(metric: MetricName, margin: number | undefined): number {
  return margin ?? (isInstructionMetric(metric) ? COUNT_MARGIN : DEFAULT_MARGIN);
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
 * published run and here, their ratio and its verdict against the margin (`margin`, or each
 * metric's default: marginOf). A cell or a floor not measured here (failed samples, a metric not
 * recorded) is `not measured`, never `holds`.
 */
export function judgeClaims(
  cells: readonly Cell[],
  floor: Cell,
  published: readonly CellSummary[],
  here: readonly CellSummary[],
  metrics: readonly MetricName[],
  margin?: number,
): Claim[] {
  const byKey = (list: readonly CellSummary[]) => new Map(list.map((s) => [cellKey(s.cell), s]));
  const inPublished = byKey(published);
  const inHere = byKey(here);
  const floorKey = cellKey(floor);
  const sets = (side: Map<string, CellSummary>, cell: Cell, metric: MetricName) => {
    const a = side.get(cellKey(cell));
    const b = side.get(floorKey);
    const sa = a && statsOf(a, metric);
    const sb = b && statsOf(b, metric);
    return sa?.values.length && sb?.values.length && sb.median > 0 ? { cell: sa.values, floor: sb.values } : undefined;
  };
  return [...cells]
    .filter((cell) => cellKey(cell) !== floorKey)
    .sort(compareCells)
    .flatMap((cell) =>
      metrics.map((metric): Claim => {
        const seed = `verify ${cellKey(cell)} / ${floorKey} ${metric}`;
        const claimMargin = marginOf(metric, margin);
        const p = sets(inPublished, cell, metric);
        const h = sets(inHere, cell, metric);
        const base = { cell, floor, metric, margin: claimMargin, published: undefined, here: undefined };
        if (!p) return { ...base, verdict: 'not measured', why: `the published run has no ${metric} of ${cellLabel(cell)} and the floor` };
        if (!h) return { ...base, verdict: 'not measured', why: `no ${metric} of ${cellLabel(cell)} and the floor was measured here` };
        const judged = agreementOf({ published: p, here: h }, seed);
        if (!judged) return { ...base, verdict: 'not measured', why: `a median of 0 in ${metric} of ${cellLabel(cell)} or the floor` };
        const verdict = verdictOf(judged.agreement.interval, claimMargin);
        const claim: Claim = { ...base, ...judged, verdict };
        if (verdict === 'undetermined')
          claim.samplesNeeded = samplesNeeded(judged.agreement, claimMargin, Math.min(h.cell.length, h.floor.length));
        return claim;
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
