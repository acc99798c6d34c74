/**
 * `--samples auto`'s settings: the target precision of every median and the sample bounds, with
 * their checks (their defaults are DEFAULT_SPEC's, core/run-spec.ts; the rounds that use them are analyse/precision.ts).
 */
import { UsageError } from './errors.ts';

/** A bootstrap CI needs two values; fewer cannot say anything about precision. */
export const SMALLEST_MIN_SAMPLES = 2;

export interface PrecisionSettings {
  /** the target half-width of the 95 % CI as a share of the median (0.03 for ±3 %) */
  precision: number;
  /** samples every cell takes before its precision is judged */
  minSamples: number;
  /** samples (successful and failed) after which a cell stops whatever its precision */
  maxSamples: number;
}

/** Check the three settings together; a bad combination is a UsageError. */
export function precisionSettings(settings: PrecisionSettings): PrecisionSettings {
  const { precision, minSamples, maxSamples } = settings;
  if (!(precision > 0 && precision < 1)) throw new UsageError(`--precision: ${precision} is not a share between 0 and 1`);
  if (!Number.isInteger(minSamples) || minSamples < SMALLEST_MIN_SAMPLES) {
    throw new UsageError(`--min-samples: ${minSamples} is below ${SMALLEST_MIN_SAMPLES} (a confidence interval needs two values)`);
  }
  if (!Number.isInteger(maxSamples) || maxSamples < minSamples) {
    throw new UsageError(`--max-samples: ${maxSamples} is below --min-samples ${minSamples}`);
  }
  return settings;
}

/** `3%`, `3 %` or `3` → 0.03; anything else (or not above 0 and below 100 %) is a UsageError. */
export function parsePrecision(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const percent = match ? Number(match[1]) : NaN;
  if (!(percent > 0 && percent < 100)) throw new UsageError(`--precision: "${text}" is not a percentage above 0 and below 100 (e.g. 3%)`);
  return percent / 100;
}
