import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate, describe as describeValues } from '../../metrics/analyse/aggregate.ts';
import { outlierWarnings } from '../../metrics/report/write.ts';
import {
  bootstrapMedianCI,
  exactUCdf,
  isWideSpread,
  madOutliers,
  mannWhitneyU,
  modifiedZScores,
  normalCdf,
  ranks,
} from '../../metrics/analyse/stats.ts';
import { cell, samplesOf } from '../support/synthetic.ts';

const close = (actual: number, expected: number, tolerance: number, what = '') =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what} ${actual} is not within ${tolerance} of ${expected}`);

describe('describe(): median, mean, stddev, min, max against hand-computed values', () => {
  it('2, 4, 4, 4, 5, 5, 7, 9', () => {
    const s = describeValues([9, 4, 2, 5, 4, 7, 4, 5])!;
    assert.equal(s.median, 4.5);
    assert.equal(s.mean, 5);
    // squared deviations 9+1+1+1+0+0+4+16 = 32; 32 / 7 = 4.571428…; sqrt = 2.138090
    close(s.stddev!, 2.13809, 1e-5, 'stddev');
    assert.equal(s.min, 2);
    assert.equal(s.max, 9);
  });
  it('wide spread: max/min above 1.5 only', () => {
    assert.equal(describeValues([100, 120, 150])!.wide, false);
    assert.equal(describeValues([100, 120, 151])!.wide, true);
    assert.equal(isWideSpread(100, 150), false);
    assert.equal(isWideSpread(100, 150.1), true);
  });
});

describe('bootstrap CI of the median (seeded, 2000 resamples, percentile)', () => {
  const values = [101, 97, 110, 95, 104, 99, 120, 102, 98, 100];
  it('is stable for a fixed seed and contains the median', () => {
    const first = bootstrapMedianCI(values, 'seed-a')!;
    const again = bootstrapMedianCI(values, 'seed-a')!;
    assert.deepEqual(first, again);
    const m = describeValues(values)!.median; // 100.5
    assert.equal(m, 100.5);
    assert.ok(first.low <= m && m <= first.high, `${first.low} ≤ ${m} ≤ ${first.high}`);
    assert.ok(first.low >= 95 && first.high <= 120, 'inside the data');
    assert.ok(first.low < first.high);
  });
  it('aggregate seeds it from the cell key and metric: the same samples give the same CI', () => {
    const samples = samplesOf(cell('fastify', 10), values);
    const a = aggregate(samples)[0]!.metrics.firstResponse!.ci95;
    const b = aggregate([...samples].reverse())[0]!.metrics.firstResponse!.ci95;
    assert.ok(a);
    assert.deepEqual(aggregate(samples)[0]!.metrics.firstResponse!.ci95, a);
    // reversing the order of the samples changes the resamples but not the data: still around the median
    assert.ok(b && b.low <= 100.5 && 100.5 <= b.high);
  });
  it('needs two values', () => {
    assert.equal(bootstrapMedianCI([42], 'x'), undefined);
    assert.equal(describeValues([42])!.ci95, undefined);
    assert.deepEqual(bootstrapMedianCI([5, 5, 5], 'x'), { low: 5, high: 5 });
  });
});

describe('MAD outliers (modified z-score |0.6745·(x − median)/MAD| > 3.5)', () => {
  it('flags a planted outlier, hand-computed', () => {
    // median 13, |deviations| 3 2 1 0 1 2 17 → MAD 2; z(30) = 0.6745·17/2 = 5.733; z(10) = −1.012
    const values = [10, 11, 12, 13, 14, 15, 30];
    const z = modifiedZScores(values);
    close(z[6]!, 5.73325, 1e-5, 'z(30)');
    close(z[0]!, -1.01175, 1e-5, 'z(10)');
    assert.deepEqual(madOutliers(values), [30]);
  });
  it('flags nothing in tidy data', () => {
    assert.deepEqual(madOutliers([10, 11, 12, 13, 14, 15, 16]), []);
    assert.deepEqual(madOutliers([100, 130, 115, 120, 110]), []);
    assert.deepEqual(madOutliers([7]), []);
  });
  it('a MAD of 0 flags any value off the median, as hyperfine does', () => {
    assert.deepEqual(madOutliers([5, 5, 5, 5, 9]), [9]);
    assert.deepEqual(madOutliers([5, 5, 5, 5, 5]), []);
  });
  it('needs five values: with three, an uneven gap is not an outlier', () => {
    // with 3 values MAD is the smaller gap: z(59.2) = 0.6745·9.2/0.5 = 12.4, but three samples cannot tell
    assert.deepEqual(madOutliers([50, 50.5, 59.2]), []);
    assert.deepEqual(madOutliers([50, 50.5, 59.2, 50.2, 50.4]), [59.2]);
  });
  it('a warning line names the cell and the metric', () => {
    const summaries = aggregate([
      ...samplesOf(cell('fastify', 100), [100, 101, 102, 103, 104, 105, 300]),
      ...samplesOf(cell('node-http', 100), [50, 51, 52, 53, 54]),
    ]);
    const warnings = outlierWarnings(summaries);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /100-startup-fastify-routes\.js/);
    assert.match(warnings[0]!, /firstResponse 1 of 7 \(300 ms; median 103 ms\)/);
    assert.deepEqual(summaries[0]!.metrics.firstResponse!.outliers, [300]);
  });
});

describe('Mann-Whitney U against R (wilcox.test) and hand-computed values', () => {
  it("R's documented example: W = 35, one-sided p = 0.1272, so two-sided 0.2544 (exact)", () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const r = mannWhitneyU(x, y);
    assert.equal(r.u, 35);
    assert.equal(r.method, 'exact');
    close(r.p, 0.2544, 1e-4, 'p');
  });
  it('complete separation of 5 and 5: U = 0, p = 2/252', () => {
    const r = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
    assert.equal(r.u, 0);
    close(r.p, 2 / 252, 1e-12, 'p');
    const swapped = mannWhitneyU([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]);
    assert.equal(swapped.u, 25);
    close(swapped.p, r.p, 1e-12, 'symmetric');
  });
  it('ties: normal approximation with tie and continuity correction, hand-computed', () => {
    // ranks: 1→1, 2 2 2→3, 3 3→5.5, 4→7, 5→8; R_x = 1+3+3+5.5 = 12.5, U = 12.5 − 10 = 2.5
    // σ² = 16/12 · (9 − (24 + 6)/56) = 11.2857; z = (2.5 − 8 + 0.5)/3.35942 = −1.48835; p = 2Φ(z) = 0.13666
    const r = mannWhitneyU([1, 2, 2, 3], [2, 3, 4, 5]);
    assert.equal(r.u, 2.5);
    assert.equal(r.method, 'normal');
    close(r.p, 0.13666, 1e-4, 'p');
  });
  it('identical samples: p = 1', () => {
    assert.equal(mannWhitneyU([3, 3, 3], [3, 3, 3]).p, 1);
    close(mannWhitneyU([1, 2, 3, 4], [1, 2, 3, 4]).p, 1, 1e-12);
  });
  it('the pieces: average ranks, the exact CDF, the normal CDF', () => {
    assert.deepEqual(ranks([10, 20, 20, 5]), [2, 3.5, 3.5, 1]);
    // P(U ≤ 0) for 2 and 2 is 1/C(4,2) = 1/6; P(U ≤ 4) = 1
    close(exactUCdf(0, 2, 2), 1 / 6, 1e-12);
    close(exactUCdf(4, 2, 2), 1, 1e-12);
    close(normalCdf(1.96), 0.975, 1e-4);
    close(normalCdf(0), 0.5, 1e-7);
  });
});
