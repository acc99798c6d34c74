/**
 * A report of a million samples stays under 300 MB (issue 38; docs/guide/robustness.md has the peak RSS
 * before and after). What made it grow was garbage, not what it keeps: every described column of half a
 * million values left about 18 MB of large arrays (copies to take a median, the MAD's deviations, the
 * z-scores) in V8's large-object space until the next full collection. The statistics now work on
 * typed copies outside the JS heap. This checks that, without a clock or a peak: the large-object
 * space grows by no more than the values kept (Stats.values) while a column is described, and the
 * figures are the ones simple-statistics gives.
 */
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe as suite, it } from 'node:test';
import { median, medianAbsoluteDeviation, quantile } from 'simple-statistics';
import { Aggregator, describe, quartiles } from '../../metrics/analyse/aggregate.ts';
import { madOutliers, medianOf, modifiedZScores } from '../../metrics/analyse/stats.ts';
import { cell, sampleOf } from '../support/synthetic.ts';

const largeObjects = () => getHeapSpaceStatistics().find((s) => s.space_name === 'large_object_space')!.space_used_size;

/** Half a million values with a spread and a few far ones (deterministic). */
function column(n = 500_000): number[] {
  return Array.from({ length: n }, (_, i) => 100 + ((i * 7919) % 1000) / 10 + (i % 50_000 === 0 ? 900 : 0));
}

suite('the statistics of a large column', () => {
  it('give simple-statistics’ figures', () => {
    for (const values of [[3], [1, 2], [5, 1, 4, 2, 3], column(10_001), column(10_000)]) {
      assert.equal(medianOf(values), median(values));
      const center = median(values);
      const mad = medianAbsoluteDeviation(values) || Number.EPSILON;
      assert.deepEqual(
        modifiedZScores(values),
        values.map((x) => (0.6745 * (x - center)) / mad),
      );
      const stats = describe(values)!;
      assert.deepEqual(quartiles(stats), { p25: quantile(values, 0.25), p75: quantile(values, 0.75) });
    }
    const values = column(10_000);
    // the far ones, every 50,000th value plus 900: of 10,000 values only the first
    assert.deepEqual(madOutliers(values), [values[0]]);
  });

  it('leave no large array in the JS heap beyond the values kept', () => {
    const values = column();
    const kept = values.length * 8;
    const before = largeObjects();
    const stats = describe(values, 'memory')!;
    medianOf(values);
    madOutliers(values);
    quartiles(stats);
    const grown = largeObjects() - before;
    // before: median's copy, the MAD's copies and deviations, the z-scores: about 6 × 4 MB
    assert.ok(grown <= kept, `the large-object space grew by ${grown} bytes describing ${values.length} values`);
    assert.equal(stats.outliers.length, 10);
  });

  it('a cell of many Lambda samples keeps its figures in columns, and its sample indices in order', () => {
    const aggregator = new Aggregator();
    const n = 20_000;
    for (let i = 1; i <= n; i++) {
      const lambda = { initMs: 100 + (i % 10), durationMs: 5, billedMs: 106, memorySizeMB: 512, maxMemoryUsedMB: 60 + (i % 3) };
      aggregator.add(sampleOf(cell('hono', 1, { target: 'lambda' }), 105, i, { lambda }));
    }
    const [summary] = aggregator.summaries();
    assert.equal(summary!.lambda!.sampleIndex!.length, n);
    assert.deepEqual(summary!.lambda!.sampleIndex!.slice(0, 3), [1, 2, 3]);
    assert.equal(summary!.lambda!.maxMemoryUsedMB, 62);
    assert.equal(summary!.lambda!.initMs.median, 104.5);
  });
});
