/**
 * The coverage the Init interval states (issue 47), checked by a leave-one-out test over the calibration
 * functions: each function held out, k fitted on the others, the interval built as the estimator builds it
 * (termModel on the others' data, their own leave-one-out error range), and the held-out real Init tested
 * against it. The count of real figures inside is what the report prints beside the interval
 * (looCoverage); this test counts it through the interval itself, not through the errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fitCodeLoading,
  helloWorldAtFit,
  leaveOneOut,
  looCoverage,
  looErrorRanges,
  predictRow,
  shippedCodeLoading,
  termModel,
} from '../../metrics/analyse/code-loading.ts';
import type { CodeLoadingData } from '../../metrics/calibration/lambda-code-loading.ts';

/** The data without one function, with its fit redone (k and the leave-one-out ranges) as the shipped file records it. */
function without(data: CodeLoadingData, held: string): CodeLoadingData {
  const rows = data.rows.filter((r) => r.function !== held);
  const fit = fitCodeLoading(rows, undefined, helloWorldAtFit(data.rows));
  return { ...data, rows, fit: { ...data.fit, coefficient: fit.coefficient, looErrorPct: looErrorRanges(leaveOneOut(rows)) } };
}

describe('the Init interval’s stated coverage (leave-one-out over the calibration functions)', () => {
  it('counts the held-out real Init figures inside the interval built without their function, and states that count', () => {
    const data = shippedCodeLoading();
    const functions = [...new Set(data.rows.map((r) => r.function))];
    let inside = 0;
    for (const held of functions) {
      const rest = without(data, held);
      const model = termModel(rest);
      assert.ok(model.errorPct, held);
      const [eMin, eMax] = model.errorPct;
      const fit = fitCodeLoading(rest.rows, undefined, helloWorldAtFit(data.rows));
      for (const row of data.rows.filter((r) => r.function === held)) {
        const estimate = predictRow(row, fit);
        assert.ok(estimate !== undefined, held);
        // the interval as estimate-interval.ts makes it: the real figure lies in E / (1 + e_max) … E / (1 + e_min)
        const low = estimate / (1 + eMax / 100);
        const high = estimate / (1 + eMin / 100);
        // the errors are kept to 0.1 %: a real figure within that of an end counts as the rounded error does
        const slack = row.real.initMs * 0.0005;
        if (row.real.initMs >= low - slack && row.real.initMs <= high + slack) inside += 1;
      }
    }
    const stated = termModel(data).coverage;
    assert.ok(stated, 'the shipped model states a coverage');
    assert.equal(stated.n, data.rows.length);
    assert.equal(stated.functions, functions.length);
    assert.equal(stated.within, inside, `stated ${stated.within} of ${stated.n}, counted ${inside}`);
    // what the published pages print: 13 of the 20 real figures, not the 95 % a reader would assume
    assert.equal(`${stated.within} of ${stated.n}`, '13 of 20');
  });

  it('states no coverage when too few functions are left to hold one out', () => {
    const data = shippedCodeLoading();
    const few = data.rows.filter((r) => r.function.startsWith('cebert') || r.function === 'kisoft-node');
    assert.equal(looCoverage(few), undefined);
  });
});
