/**
 * The statistics behind every figure beyond the plain median: a seeded bootstrap CI of the median,
 * MAD outliers, the wide-spread mark and the Mann-Whitney U test that `compare` uses.
 * Everything here is deterministic: the same values and seed give the same numbers.
 */
import seedrandom from 'seedrandom';
import { quantileSorted } from 'simple-statistics';

export const BOOTSTRAP_RESAMPLES = 2000;
export const CI_LEVEL = 0.95;
/** Iglewicz and Hoaglin's cut-off for the modified z-score. */
export const OUTLIER_Z = 3.5;
/** Below this many values the MAD is too crude to call anything an outlier (with 3, any uneven gap would be one). */
export const MIN_OUTLIER_SAMPLES = 5;
/** max/min above this: the cell is too noisy to read its median as a fact. */
export const WIDE_SPREAD = 1.5;

export interface Interval {
  low: number;
  high: number;
}

/** Above this many values the CI of the median is the order-statistic one (bootstrapMedianCI). */
export const MAX_BOOTSTRAP_VALUES = 10_000;

/**
 * Distribution-free CI of the median from order statistics: the ranks n/2 ∓ z·√n/2 (the normal
 * approximation of the binomial count of values below the median), for large samples.
 */
export function orderStatisticMedianCI(values: readonly number[], level = CI_LEVEL): Interval | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  const sorted = Float64Array.from(values).sort();
  const z = probit(1 - (1 - level) / 2);
  const low = Math.max(1, Math.floor(n / 2 - (z * Math.sqrt(n)) / 2));
  const high = Math.min(n, Math.ceil(n / 2 + 1 + (z * Math.sqrt(n)) / 2));
  return { low: sorted[low - 1]!, high: sorted[high - 1]! };
}

/** The standard normal quantile (Acklam's rational approximation; |error| < 1.2e-9). */
function probit(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/**
 * Percentile bootstrap CI of the median: `resamples` resamples with replacement drawn with
 * seedrandom(seed), the median of each, and their 2.5 % and 97.5 % quantiles. Undefined below two
 * values (a resample of one value says nothing about spread). Each resample's median is read from
 * counts per rank, O(n), rather than by sorting the resample, O(n log n): the same draws give the same
 * medians. Above MAX_BOOTSTRAP_VALUES values (imported logs) it is the order-statistic interval.
 */
export function bootstrapMedianCI(
  values: readonly number[],
  seed: string,
  resamples = BOOTSTRAP_RESAMPLES,
  level = CI_LEVEL,
): Interval | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  if (n > MAX_BOOTSTRAP_VALUES) return orderStatisticMedianCI(values, level);
  const random = seedrandom(seed);
  // the values in order, and the rank of each: a resample is a count per rank
  const order = Array.from(values.keys()).sort((a, b) => values[a]! - values[b]! || a - b);
  const sorted = Float64Array.from(order, (i) => values[i]!);
  const rank = new Int32Array(n);
  order.forEach((i, r) => (rank[i] = r));
  const counts = new Int32Array(n);
  const medians = new Float64Array(resamples);
  const mid = n >> 1;
  for (let r = 0; r < resamples; r++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[rank[Math.floor(random() * n)]!]!++;
    // the values at positions mid − 1 and mid of the sorted resample
    let below: number | undefined;
    let seen = 0;
    for (let k = 0; k < n; k++) {
      seen += counts[k]!;
      if (below === undefined && seen > mid - 1) below = sorted[k]!;
      if (seen > mid) {
        medians[r] = n % 2 ? sorted[k]! : (below! + sorted[k]!) / 2;
        break;
      }
    }
  }
  medians.sort();
  const ordered = Array.from(medians);
  const tail = (1 - level) / 2;
  return { low: quantileSorted(ordered, tail), high: quantileSorted(ordered, 1 - tail) };
}

/**
 * The median of `values` as simple-statistics' median gives it (its quantile at 0.5 of the sorted
 * values), from a sorted typed copy: outside the JS heap, so a column of a million values leaves no
 * large garbage for the next full collection (a report of an import of 1,000,000 lines grew by 18 MB
 * of it for each column described).
 */
export function medianOf(values: ArrayLike<number>): number {
  return sortedMedian(Float64Array.from(values).sort());
}

function sortedMedian(sorted: Float64Array): number {
  return quantileSorted(sorted as unknown as number[], 0.5);
}

/** The median and the median absolute deviation, in one typed copy (sorted, then overwritten by the deviations). */
function centerAndMad(values: readonly number[]): { center: number; mad: number } {
  const work = Float64Array.from(values).sort();
  const center = sortedMedian(work);
  // the deviations of the sorted values: the same multiset as of the values in their order
  for (let i = 0; i < work.length; i++) work[i] = Math.abs(work[i]! - center);
  return { center, mad: sortedMedian(work.sort()) };
}

/**
 * Modified z-scores 0.6745·(x − median)/MAD (Iglewicz and Hoaglin). A MAD of 0 (more than half the
 * values equal) is replaced by Number.EPSILON (2^-52), so that any value off the median gets a huge
 * score and counts as an outlier instead of dividing by zero.
 */
export function modifiedZScores(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  const { center, mad } = centerAndMad(values);
  const scale = mad || Number.EPSILON;
  return values.map((x) => (0.6745 * (x - center)) / scale);
}

/** The values whose |modified z-score| exceeds 3.5, in their original order; none below 5 values. */
export function madOutliers(values: readonly number[], threshold = OUTLIER_Z): number[] {
  if (values.length < MIN_OUTLIER_SAMPLES) return [];
  const { center, mad } = centerAndMad(values);
  const scale = mad || Number.EPSILON;
  return values.filter((x) => Math.abs((0.6745 * (x - center)) / scale) > threshold);
}

/** max/min > 1.5 (any non-positive minimum counts as wide: a ratio cannot be trusted). */
export function isWideSpread(min: number, max: number, limit = WIDE_SPREAD): boolean {
  return min <= 0 ? max > min : max / min > limit;
}

/** Complementary error function, Numerical Recipes' erfcc: fractional error below 1.2e-7 everywhere. */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Average ranks (1-based) of the values, ties sharing the mean of their positions. */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = new Array<number>(values.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j++;
    const rank = (i + j + 2) / 2;
    for (let k = i; k <= j; k++) result[order[k]!.index] = rank;
    i = j + 1;
  }
  return result;
}

/**
 * P(U ≤ u) for the Mann-Whitney U of samples of sizes m and n without ties, from the recursion
 * p(u; m, n) = m/(m+n)·p(u − n; m − 1, n) + n/(m+n)·p(u; m, n − 1) (all terms positive: stable).
 */
export function exactUCdf(u: number, m: number, n: number): number {
  const size = m * n + 1;
  // prev[j] is the distribution for (i − 1, j); cur[j] for (i, j)
  let prev: Float64Array[] = Array.from({ length: n + 1 }, () => {
    const p = new Float64Array(size);
    p[0] = 1;
    return p;
  });
  for (let i = 1; i <= m; i++) {
    const cur: Float64Array[] = [];
    const first = new Float64Array(size);
    first[0] = 1;
    cur.push(first);
    for (let j = 1; j <= n; j++) {
      const p = new Float64Array(size);
      const a = i / (i + j);
      const b = j / (i + j);
      const left = prev[j]!;
      const down = cur[j - 1]!;
      for (let k = 0; k <= i * j; k++) p[k] = (k >= j ? a * left[k - j]! : 0) + b * down[k]!;
      cur.push(p);
    }
    prev = cur;
  }
  const dist = prev[n]!;
  let cdf = 0;
  for (let k = 0; k <= Math.min(Math.floor(u), m * n); k++) cdf += dist[k]!;
  return Math.min(1, cdf);
}

export interface MannWhitneyResult {
  /** U of the first sample: pairs where it is larger, ties counting half (R's W) */
  u: number;
  /** two-sided p-value */
  p: number;
  method: 'exact' | 'normal';
}

/** Both samples below this size and no ties: exact p-value (as R's wilcox.test). */
export const EXACT_BELOW = 50;

/**
 * Two-sided Mann-Whitney U test (Wilcoxon rank-sum), as R's wilcox.test(x, y) computes it: exact
 * when both samples have fewer than 50 values and there are no ties, otherwise the normal
 * approximation with tie correction and continuity correction.
 */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const m = x.length;
  const n = y.length;
  if (m === 0 || n === 0) throw new RangeError('mannWhitneyU needs two non-empty samples');
  const all = [...x, ...y];
  const r = ranks(all);
  let rankSum = 0;
  for (let i = 0; i < m; i++) rankSum += r[i]!;
  const u = rankSum - (m * (m + 1)) / 2;
  const counts = new Map<number, number>();
  for (const v of all) counts.set(v, (counts.get(v) ?? 0) + 1);
  const tieTerm = [...counts.values()].reduce((sum, t) => sum + (t * t * t - t), 0);
  if (m < EXACT_BELOW && n < EXACT_BELOW && tieTerm === 0) {
    const p = u > (m * n) / 2 ? 1 - exactUCdf(u - 1, m, n) : exactUCdf(u, m, n);
    return { u, p: Math.min(1, 2 * p), method: 'exact' };
  }
  const total = m + n;
  const sigma = Math.sqrt(((m * n) / 12) * (total + 1 - tieTerm / (total * (total - 1))));
  if (!(sigma > 0)) return { u, p: 1, method: 'normal' };
  const d = u - (m * n) / 2;
  const z = (d - Math.sign(d) * 0.5) / sigma;
  // two-sided: 2·Φ(−|z|) = erfc(|z|/√2), which keeps its precision far into the tail
  return { u, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)), method: 'normal' };
}
