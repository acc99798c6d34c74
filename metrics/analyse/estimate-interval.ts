/**
 * The interval of a Lambda estimate (issue 36): how far the estimate of one cell could be off, from
 * the two things it rests on.
 *
 * - **The cell's sample spread.** The Init estimate is a function of one measured figure, the ratio of
 *   the cell's Init to the hello world's measured beside it (code-loading.ts): E(r) = the real hello
 *   world + (r − 1) × H × (1 + k when positive). The per-round ratios are resampled with replacement
 *   (percentile bootstrap of their median, BOOTSTRAP_RESAMPLES resamples seeded by the cell, so the
 *   same samples give the same bytes) and E is taken at the 2.5 % and 97.5 % quantiles of the median
 *   (E grows with r). Without rounds to pair, the two medians are resampled apart and their ratio
 *   taken at the ends that give the widest range.
 * - **The fit's residuals.** Held out, the public functions' real Init came out within the
 *   leave-one-out relative errors e of the calibration (estimate = real × (1 + e), −16.6 to +16.1 %
 *   in the shipped data): the real Init of an estimate E lies in E / (1 + e_max) … E / (1 + e_min).
 *
 * The interval is the sampling interval widened by the whole range of those errors: low =
 * E(r_low) / (1 + e_max), high = E(r_high) / (1 + e_min). Six functions are too few to give the
 * errors a distribution, so their range is taken as it is, and the coverage it has is checked, not
 * assumed: held out one function at a time, the range built on the others held 13 of the 20 real
 * figures (code-loading.ts looCoverage), which the report states beside it.
 *
 * It holds only inside the evidence, on both terms: the loading excess within the excesses the term
 * was fitted on (`extrapolation` beyond them), and the running part of a split INIT within the largest
 * running part a fitted row had (`runningUnvalidated` beyond it: none of the shipped rows has the split,
 * so any running part beyond the hello world's is unvalidated). Beyond either, the estimate has no
 * interval at all (Init, Billed and their cost): the report says "beyond evidence" and by how much.
 *
 * Duration's interval is the bootstrap interval of the cell's median invocation CPU time through the
 * same CPU share model as the estimate (not validated against real data: lambda-perf publishes no
 * per-invocation Duration). Billed Duration's is Init's and Duration's ends, each rounded up to 1 ms;
 * the cost's is the Billed interval priced.
 */
import { bootstrapMedianCI, type Interval } from './stats.ts';
import { pairedRatios, type CodeLoadingTerm } from './code-loading.ts';

export type { Interval };

/** An estimate beyond the excesses the code-loading term was fitted on. */
export interface Extrapolation {
  /** the cell's excess over the hello world at the fit's speed, ms */
  excessMs: number;
  /** the largest excess of a fitted row, ms */
  fittedUpToMs: number;
  /** excessMs / fittedUpToMs (> 1) */
  factor: number;
}

/** A split INIT's running part beyond the largest a fitted row had: no real figure validates its conversion to Lambda. */
export interface RunningBeyond {
  /** the running part on Lambda, ms */
  onLambdaMs: number;
  /** the largest running part (on Lambda) of a fitted row, ms (0: no fitted row had INIT's split) */
  fittedUpToMs: number;
}

/** The running part beyond the fitted ones, or undefined when it lies within (or there is none). */
export function runningBeyondOf(onLambdaMs: number | undefined, fittedUpToMs: number): RunningBeyond | undefined {
  return onLambdaMs !== undefined && onLambdaMs > fittedUpToMs ? { onLambdaMs, fittedUpToMs } : undefined;
}

/** Whether an Init estimate lies beyond its evidence on either term (it then has no interval). */
export function isBeyondEvidence(init: { extrapolation?: Extrapolation; runningUnvalidated?: RunningBeyond } | undefined): boolean {
  return init?.extrapolation !== undefined || init?.runningUnvalidated !== undefined;
}

/**
 * "×1.04": how far beyond, rounded up so that a factor above 1 never reads ×1.0 (two decimals below 10, one
 * from 10).
 */
export function factorText(factor: number): string {
  return factor < 10 ? `×${(Math.ceil(factor * 100 - 1e-9) / 100).toFixed(2)}` : `×${(Math.ceil(factor * 10 - 1e-9) / 10).toFixed(1)}`;
}

/**
 * "beyond evidence: ×1.60 on loading, running part unvalidated": what an estimate beyond its evidence
 * shows in place of an interval; '' within it.
 */
export function beyondEvidenceText(init: { extrapolation?: Extrapolation; runningUnvalidated?: RunningBeyond } | undefined): string {
  if (!isBeyondEvidence(init)) return '';
  const parts = [
    ...(init?.extrapolation ? [`${factorText(init.extrapolation.factor)} on loading`] : []),
    ...(init?.runningUnvalidated ? ['running part unvalidated'] : []),
  ];
  return `beyond evidence: ${parts.join(', ')}`;
}

/** The term's excess beyond the largest fitted one, or undefined when it lies within (or the term is absent). */
export function extrapolationOf(term: CodeLoadingTerm | undefined): Extrapolation | undefined {
  if (!term || !(term.fittedUpToMs > 0) || !(term.atFitSpeedMs > term.fittedUpToMs)) return undefined;
  return { excessMs: term.atFitSpeedMs, fittedUpToMs: term.fittedUpToMs, factor: term.atFitSpeedMs / term.fittedUpToMs };
}

/** "excess 816 ms, 8.1× the largest fitted (101 ms)": how far an extrapolated estimate lies beyond its evidence. */
export function extrapolationText(x: Extrapolation, ms: (value: number) => string): string {
  return `excess ${ms(x.excessMs)} ms, ${factorText(x.factor).slice(1)}× the largest fitted (${ms(x.fittedUpToMs)} ms)`;
}

/** The bootstrap interval of a ratio's median: of the per-round ratios when paired, else of the two medians apart. */
export function ratioInterval(
  cell: { values: readonly number[]; index?: readonly number[] },
  reference: { values: readonly number[]; index?: readonly number[] },
  seed: string,
): Interval | undefined {
  const ratios = pairedRatios(cell, reference);
  if (ratios) return bootstrapMedianCI(ratios, `${seed}|ratio`);
  const c = bootstrapMedianCI(cell.values, `${seed}|cell`);
  const r = bootstrapMedianCI(reference.values, `${seed}|reference`);
  if (!c || !r || !(r.low > 0)) return undefined;
  return { low: c.low / r.high, high: c.high / r.low };
}

/**
 * The Init estimate's interval: `at(r)` is the estimate at a ratio r (increasing in r), `ratio` the
 * bootstrap interval of the cell's ratio, `errorPct` [e_min, e_max] of the fit.
 */
export function initInterval(at: (ratio: number) => number, ratio: Interval, errorPct: readonly [number, number]): Interval {
  const [eMin, eMax] = errorPct;
  return { low: at(ratio.low) / (1 + eMax / 100), high: at(ratio.high) / (1 + eMin / 100) };
}

/**
 * Billed Duration of an estimate: Init and Duration, each rounded up to 1 ms as Lambda bills a cold start. The one
 * rounding of the figure every table prices (the estimate, its interval's ends, the power-tuning table's cold start).
 */
export function billedMs(initMs: number, durationMs: number): number {
  return Math.ceil(initMs) + Math.ceil(durationMs);
}

/** Billed Duration's interval from Init's and Duration's, each end rounded up to 1 ms as Lambda bills. */
export function billedInterval(init: Interval, duration: Interval): Interval {
  return { low: billedMs(init.low, duration.low), high: billedMs(init.high, duration.high) };
}
