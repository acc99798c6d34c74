/**
 * The interval and the extrapolation flag of a Lambda estimate (issue 36, analyse/estimate-interval.ts):
 * the interval is the estimate at the ends of the ratio's bootstrap interval widened by the fit's
 * leave-one-out error range, seeded so the same samples give the same interval; it holds the estimate;
 * an estimate whose excess lies beyond the largest fitted one is flagged with the factor.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { codeLoadingTerm, errorRange, onLambdaAt, pairedRatio, shippedCodeLoading, termModel } from '../../metrics/analyse/code-loading.ts';
import {
  beyondEvidenceText,
  billedInterval,
  extrapolationOf,
  extrapolationText,
  factorText,
  initInterval,
  isBeyondEvidence,
  ratioInterval,
  runningBeyondOf,
} from '../../metrics/analyse/estimate-interval.ts';
import { ms } from '../../metrics/core/format.ts';

const model = { coefficient: 1.16, helloWorldMs: () => 125, fittedUpToMs: 101, errorPct: [-16.6, 16.1] as [number, number] };
const term = (ratio: number) => codeLoadingTerm({ initMs: 125 * ratio, referenceInitMs: 125, ratio, runtime: 'nodejs24.x' }, model);

describe('the extrapolation flag', () => {
  it('flags an excess beyond the largest fitted one, with the factor; not one within, nor a negative one', () => {
    // deepkit at 1 route in 2026-11-26-lambda-10: 816 ms at the fit's speed against 101
    const beyond = term(1 + 816 / 125);
    const x = extrapolationOf(beyond);
    assert.ok(x, 'flagged');
    assert.ok(Math.abs(x.excessMs - 816) < 1e-9 && x.fittedUpToMs === 101);
    assert.ok(Math.abs(x.factor - 816 / 101) < 1e-9);
    assert.equal(extrapolationText(x, ms), 'excess 816 ms, 8.08× the largest fitted (101 ms)');
    assert.equal(extrapolationOf(term(1 + 100 / 125)), undefined, 'within: 100 ms');
    assert.equal(extrapolationOf(term(1 + 101 / 125)), undefined, 'at the largest fitted: not beyond it');
    assert.equal(extrapolationOf(term(0.9)), undefined, 'below the hello world');
    assert.equal(extrapolationOf(undefined), undefined, 'no term');
  });

  it("the shipped fit reaches 101 ms and its error range is the pages' −16.6 to +16.1 %", () => {
    const shipped = termModel(shippedCodeLoading());
    assert.equal(Math.round(shipped.fittedUpToMs), 101);
    assert.deepEqual(shipped.errorPct, [-16.6, 16.1]);
    assert.deepEqual(errorRange({ a: [-1, 2], b: [-3, 0.5] }), [-3, 2]);
    assert.equal(errorRange({}), undefined);
  });
});

describe('beyond evidence (issue 47)', () => {
  it('prints the factor rounded up, so a cell at 1.04× the range never reads ×1.0', () => {
    assert.equal(factorText(1.04), '×1.04');
    assert.equal(factorText(1.001), '×1.01', 'just beyond: rounded up, not to ×1.00');
    assert.equal(factorText(1.6), '×1.60');
    assert.equal(factorText(5.0297), '×5.03');
    assert.equal(factorText(12.34), '×12.4');
  });

  it('names either term beyond its evidence: the loading factor, the running part unvalidated, or both', () => {
    const extrapolation = extrapolationOf(term(1 + 105 / 125));
    assert.ok(extrapolation && Math.abs(extrapolation.factor - 105 / 101) < 1e-9);
    const running = runningBeyondOf(2300, 0);
    assert.ok(running);
    assert.equal(runningBeyondOf(0, 0), undefined, "the reference's own running part: within");
    assert.equal(runningBeyondOf(undefined, 0), undefined, 'no split: nothing to validate');
    assert.equal(beyondEvidenceText({ extrapolation }), 'beyond evidence: ×1.04 on loading');
    assert.equal(beyondEvidenceText({ runningUnvalidated: running }), 'beyond evidence: running part unvalidated');
    assert.equal(
      beyondEvidenceText({ extrapolation, runningUnvalidated: running }),
      'beyond evidence: ×1.04 on loading, running part unvalidated',
    );
    assert.equal(beyondEvidenceText({}), '');
    assert.equal(isBeyondEvidence({}), false);
    assert.equal(isBeyondEvidence({ runningUnvalidated: running }), true);
  });
});

describe('the interval', () => {
  it('is the estimate at the ratio interval, divided by 1 + the largest error (low) and 1 + the smallest (high)', () => {
    const at = (r: number) => 130 + onLambdaAt(r, 'nodejs24.x', model);
    const i = initInterval(at, { low: 1.1, high: 1.3 }, model.errorPct);
    assert.ok(Math.abs(i.low - at(1.1) / 1.161) < 1e-9, String(i.low));
    assert.ok(Math.abs(i.high - at(1.3) / 0.834) < 1e-9, String(i.high));
    // a ratio known exactly (the reference against itself) keeps only the fit's errors
    const exact = initInterval(at, { low: 1, high: 1 }, model.errorPct);
    assert.ok(exact.low < 130 && exact.high > 130 && Math.abs(exact.high / exact.low - 1.161 / 0.834) < 1e-9);
  });

  it('bootstraps the per-round ratios, seeded: the same samples and cell give the same bytes', () => {
    const cell = { values: [230, 250, 240, 260, 235, 245, 255, 238, 242, 248], index: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] };
    const reference = { values: [125, 130, 128, 135, 126, 129, 131, 127, 124, 133], index: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] };
    const a = ratioInterval(cell, reference, 'cell-a');
    assert.ok(a);
    assert.deepEqual(ratioInterval(cell, reference, 'cell-a'), a);
    const point = pairedRatio({ ...cell, median: 0 }, { ...reference, median: 0 });
    assert.ok(a.low <= point && point <= a.high, `${a.low} ≤ ${point} ≤ ${a.high}`);
    // without rounds: the two medians resampled apart, the widest ratio of their ends
    const apart = ratioInterval({ values: cell.values }, { values: reference.values }, 'cell-a');
    assert.ok(apart && apart.low < a.low && apart.high > a.high, JSON.stringify({ apart, a }));
    assert.equal(ratioInterval({ values: [1] }, { values: [1] }, 'x'), undefined, 'one value says nothing of spread');
  });

  it('always holds the estimate (property: any samples, any fit error range around 0)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 50, max: 5000, noNaN: true }), fc.double({ min: 50, max: 500, noNaN: true })), {
          minLength: 2,
          maxLength: 30,
        }),
        fc.double({ min: -40, max: 0, noNaN: true }),
        fc.double({ min: 0, max: 40, noNaN: true }),
        (pairs, eMin, eMax) => {
          const index = pairs.map((_, i) => i);
          const cell = { values: pairs.map((p) => p[0]), index };
          const reference = { values: pairs.map((p) => p[1]), index };
          const ratio = pairedRatio({ ...cell, median: 0 }, { ...reference, median: 0 });
          const r = ratioInterval(cell, reference, 'seed')!;
          const at = (x: number) => 120 + onLambdaAt(x, 'nodejs24.x', model);
          const i = initInterval(at, r, [eMin, eMax]);
          const estimate = at(ratio);
          return i.low <= estimate + 1e-9 && estimate <= i.high + 1e-9;
        },
      ),
      { seed: 36, numRuns: 200 },
    );
  });

  it("Billed's interval: Init's and Duration's ends, each rounded up to 1 ms", () => {
    assert.deepEqual(billedInterval({ low: 100.2, high: 150.9 }, { low: 3.1, high: 5 }), { low: 105, high: 156 });
  });
});
