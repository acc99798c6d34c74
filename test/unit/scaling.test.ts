import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate } from '../../metrics/analyse/aggregate.ts';
import { fitSentence, growthText } from '../../metrics/report/scaling-md.ts';
import {
  checkGrowth,
  fitLinear,
  fitQuadratic,
  fitSeries,
  phaseBreakdown,
  pickPhaseRoutes,
  scalingFits,
  seriesOf,
} from '../../metrics/analyse/scaling.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import { cell, sampleOf, samplesOf } from '../support/synthetic.ts';

const N = [1, 10, 100, 500, 1000, 2000];
const close = (actual: number, expected: number, tolerance: number, what = '') =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what} ${actual} is not within ${tolerance} of ${expected}`);

/** Three samples per N around f(N) (±1 %), so the medians are exactly f(N). */
function run(framework: string, f: (n: number) => number, routes = N): SampleRecord[] {
  return routes.flatMap((n) => samplesOf(cell(framework, n), [f(n) * 0.99, f(n), f(n) * 1.01]));
}

describe('scaling fits on the medians', () => {
  it('linear data: recovers fixed and per-route cost, R² ≈ 1, not faster than linear', () => {
    const [series] = seriesOf(aggregate(run('lin', (n) => 40 + 0.5 * n)));
    const f = fitSeries(series!, 'firstResponse');
    close(f.fit!.fixedMs, 40, 1e-6, 'fixed');
    close(f.fit!.perRouteMs, 0.5, 1e-9, 'per route');
    close(f.fit!.r2, 1, 1e-9, 'R²');
    assert.equal(f.fit!.slopeSignificant, true);
    assert.equal(f.growth!.superlinear, false);
    assert.match(fitSentence(f), /lin firstResponse grows about linearly with routes: 40\.0 ms fixed \+ 500 µs per route/);
  });

  it('the listen fit uses the listen medians (90 % of firstResponse here)', () => {
    const [series] = seriesOf(aggregate(run('lin', (n) => 40 + 0.5 * n)));
    const f = fitSeries(series!, 'listen');
    close(f.fit!.fixedMs, 36, 1e-6);
    close(f.fit!.perRouteMs, 0.45, 1e-9);
  });

  it('quadratic data: flagged faster than linear, in words', () => {
    const fits = scalingFits(aggregate(run('deepkit', (n) => 5 + 0.002 * n * n)));
    const f = fits.find((x) => x.metric === 'firstResponse')!;
    assert.equal(f.growth!.superlinear, true);
    assert.ok(f.growth!.logLogSlope! > 1.15, `log-log slope ${f.growth!.logLogSlope}`);
    assert.match(
      fitSentence(f),
      /deepkit firstResponse grows faster than linearly with routes\*\* \(log-log slope [\d.]+ on N ≥ 10; a significant N² term/,
    );
    assert.equal(fits.find((x) => x.metric === 'listen')!.growth!.superlinear, true);
  });

  it('a big fixed cost hides the log-log slope; the quadratic term still shows', () => {
    const points = N.map((n): [number, number] => [n, 500 + 0.2 * n + 0.0002 * n * n]);
    const growth = checkGrowth(points, fitLinear(points));
    assert.ok(growth.logLogSlope! < 1.15, `log-log slope ${growth.logLogSlope}`);
    assert.equal(growth.superlinear, true);
    const q = fitQuadratic(points)!;
    close(q.a, 500, 1e-6);
    close(q.b, 0.2, 1e-9);
    close(q.c, 0.0002, 1e-12);
  });

  it('fewer than 5 route counts: the line, and growth not determined, even through a steep quadratic', () => {
    for (const routes of [
      [1, 1000, 5000],
      [10, 1000, 3000, 5000],
    ]) {
      const fits = scalingFits(aggregate(run('deepkit', (n) => 5 + 0.002 * n * n, routes)));
      const f = fits.find((x) => x.metric === 'firstResponse')!;
      assert.ok(f.fit, 'a line is fitted');
      assert.deepEqual([f.growth!.determined, f.growth!.superlinear], [false, false]);
      assert.equal(growthText(f), `not determined (${routes.length} route counts)`);
      assert.match(fitSentence(f), new RegExp(`a line through ${routes.length} route counts, .*growth not determined`));
    }
  });

  it('noise without a trend is flat, not linear and not faster', () => {
    const noisy = [50, 53, 49, 52, 48, 51];
    const f = fitSeries(seriesOf(aggregate(run('floor', (n) => noisy[N.indexOf(n)]!)))[0]!, 'firstResponse');
    assert.equal(f.growth!.superlinear, false);
    assert.equal(f.fit!.slopeSignificant, false);
    assert.match(fitSentence(f), /shows no measurable growth with routes/);
  });

  it('fewer than three distinct N: no fit, and it says so', () => {
    const f = fitSeries(seriesOf(aggregate(run('two', (n) => n, [10, 100])))[0]!, 'firstResponse');
    assert.equal(f.fit, undefined);
    assert.match(fitSentence(f), /2 distinct route counts; a fit needs at least 3/);
  });

  it('one series per framework and the other varying dimensions, labelled with what varies', () => {
    const samples = [
      ...samplesOf(cell('fastify', 10), [1]),
      ...samplesOf(cell('fastify', 10, { variant: 'plain' }), [1]),
      ...samplesOf(cell('hono', 10), [1]),
    ];
    assert.deepEqual(
      seriesOf(aggregate(samples)).map((s) => s.label),
      ['fastify [variant=plain]', 'fastify [variant=validated]', 'hono [variant=validated]'],
    );
    assert.deepEqual(
      seriesOf(aggregate(samplesOf(cell('hono', 10), [1]))).map((s) => s.label),
      ['hono'],
    );
  });
});

describe('phase breakdown', () => {
  it('each phase of the synthetic timeline', () => {
    const [summary] = aggregate(samplesOf(cell('fastify', 10), [100, 200, 300]));
    assert.deepEqual(phaseBreakdown(summary!), {
      'runtime boot': 20,
      'framework import': 40,
      'route registration': 40,
      listen: 80,
      'first request': 20,
    });
  });
  it('is the median of per-sample differences, not the difference of medians', () => {
    const c = cell('fastify', 10);
    const at = (start: number, imported: number, index: number): SampleRecord => {
      const s = sampleOf(c, 1000, index);
      return { ...s, marks: { ...s.marks!, start, imported } };
    };
    // imported − start per sample: 40, 10, 70 → median 40 (medians 50 − 20 would say 30)
    const [summary] = aggregate([at(10, 50, 1), at(30, 40, 2), at(20, 90, 3)]);
    assert.equal(phaseBreakdown(summary!)!['framework import'], 40);
    assert.equal(phaseBreakdown(summary!)!['runtime boot'], 20);
  });
  it('the phase chart defaults to N = 1000, else the largest N below it, else the smallest', () => {
    const at = (routes: number[]) => pickPhaseRoutes(aggregate(routes.flatMap((n) => samplesOf(cell('f', n), [1]))));
    assert.equal(at([1, 1000, 5000]), 1000);
    assert.equal(at([1, 10, 500, 2000]), 500);
    assert.equal(at([2000, 5000]), 2000);
    assert.equal(at([]), undefined);
  });
});

describe('Lambda cells: init where a server has listen', () => {
  const lambdaSamples = [1, 10, 100].flatMap((routes) =>
    [0, 1].map((i): SampleRecord => {
      const f = 100 + routes;
      return {
        cell: cell('hono', routes, { target: 'lambda' }),
        phase: 'sample',
        index: i + 1,
        ok: true,
        marks: { processStart: 1, start: 10, imported: 30, startup: 50, init: 50 + routes / 2, firstResponse: f },
        durationMs: f + 5,
        at: '2026-01-01T00:00:00.000Z',
      };
    }),
  );
  const summaries = aggregate(lambdaSamples);

  it('the phase breakdown ends the listen phase at init and starts the first request there', () => {
    const phases = phaseBreakdown(summaries.find((s) => s.cell.routes === 100)!);
    assert.ok(phases);
    assert.equal(phases.listen, 50);
    assert.equal(phases['first request'], 200 - 100);
  });

  it('the scaling fit of a Lambda series takes init and says so', () => {
    const fits = scalingFits(summaries).filter((f) => f.metric === 'listen');
    assert.equal(fits.length, 1);
    assert.equal(fits[0]!.mark, 'init');
    assert.ok(fits[0]!.fit);
    assert.ok(Math.abs(fits[0]!.fit.perRouteMs - 0.5) < 1e-9);
    assert.match(fitSentence(fits[0]!), /hono \[target=lambda\] init|hono init/);
  });
});
