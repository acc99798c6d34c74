/**
 * Sampling to a target precision (`--samples auto`): after each round, which cells still need
 * another sample and which have stopped, and why. A cell is precise enough when the 95 % bootstrap
 * CI of its median lies within ± precision × median, i.e. the half-width
 * max(median − low, high − median) is at most precision × median.
 *
 * How a measurement session uses it (pure: it runs nothing itself):
 *
 *   const settings = precisionSettings({ precision: parsePrecision('3%'), minSamples: 5, maxSamples: 30 });
 *   let decision = decideRound(cells.map((c) => progressOf(c)), settings);
 *   while (decision.more.length) {
 *     // one interleaved round: one sample of every cell in decision.more, in the run's order
 *     for (const key of decision.more) await measureOneSample(key);
 *     decision = decideRound(cells.map((c) => progressOf(c)), settings);
 *     // the progress line can show formatPrecision(state) of each cell in decision.cells
 *   }
 *   // decision.cells: per cell the samples taken, the half-width reached and why it stopped
 *
 * where progressOf gives a cell's successful values of the deciding metric so far (wall
 * firstResponse unless the user chose another) and its failures. Cells the runtime cannot run
 * (unsupported) are not passed in: they are not sampled at all.
 */
import { median } from 'simple-statistics';
import { percent } from '../core/format.ts';
import { bootstrapMedianCI } from './stats.ts';

export { parsePrecision, precisionSettings, type PrecisionSettings } from '../core/precision-settings.ts';
import type { PrecisionSettings } from '../core/precision-settings.ts';

/** What a cell has so far. */
export interface CellProgress {
  /** the cell's key (cellKey): returned as is */
  key: string;
  /** the deciding metric of each successful sample, in sample order */
  values: readonly number[];
  /** samples that failed */
  failures: number;
  /** the bootstrap's seed; the report's own (`coldstart|<key>|<metric>`) makes its CI the one that decided */
  seed?: string;
}

export type StopReason = 'precision reached' | 'maximum reached' | 'too many failures';

export interface CellPrecision {
  key: string;
  /** samples taken: successful and failed */
  samples: number;
  failures: number;
  median: number | undefined;
  /** half-width of the 95 % CI of the median in the metric's unit; undefined below two values */
  halfWidth: number | undefined;
  /** halfWidth / median (0.021 = ±2.1 %); undefined when either is missing or the median is not positive */
  relative: number | undefined;
  /** undefined while the cell still needs samples */
  stopped: StopReason | undefined;
}

export interface RoundDecision {
  /** the keys that need another sample, in the order given */
  more: string[];
  /** every cell's state, in the order given */
  cells: CellPrecision[];
}

/**
 * Too many failures: at least the minimum taken and more than half of them failed (a cell that
 * mostly crashes will not become precise by sampling it more).
 */
function tooManyFailures(samples: number, failures: number, settings: PrecisionSettings): boolean {
  return samples >= settings.minSamples && failures * 2 > samples;
}

/** One cell's state. The bootstrap is seeded (by `seed`, else the key and the count): the same values give the same decision. */
export function assessCell(progress: CellProgress, settings: PrecisionSettings): CellPrecision {
  const values = [...progress.values];
  const samples = values.length + progress.failures;
  const center = values.length ? median(values) : undefined;
  const ci = bootstrapMedianCI(values, progress.seed ?? `precision|${progress.key}|${values.length}`);
  const halfWidth = ci && center !== undefined ? Math.max(center - ci.low, ci.high - center) : undefined;
  const relative = halfWidth !== undefined && center !== undefined && center > 0 ? halfWidth / center : undefined;
  let stopped: StopReason | undefined;
  if (tooManyFailures(samples, progress.failures, settings)) stopped = 'too many failures';
  else if (samples >= settings.minSamples && relative !== undefined && relative <= settings.precision) stopped = 'precision reached';
  else if (samples >= settings.maxSamples) stopped = 'maximum reached';
  return { key: progress.key, samples, failures: progress.failures, median: center, halfWidth, relative, stopped };
}

/** After a round: every cell's state and the keys that need another sample. */
export function decideRound(cells: readonly CellProgress[], settings: PrecisionSettings): RoundDecision {
  const states = cells.map((c) => assessCell(c, settings));
  return { more: states.filter((s) => !s.stopped).map((s) => s.key), cells: states };
}

/** For the progress line and the report: `n=12 ±2.4 %` (and why it stopped, once it has). */
export function formatPrecision(state: CellPrecision): string {
  const width = state.relative === undefined ? '±?' : `±${percent(state.relative)}`;
  return `n=${state.samples} ${width}${state.stopped ? ` (${state.stopped})` : ''}`;
}
