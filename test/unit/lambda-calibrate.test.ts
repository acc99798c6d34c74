/** lambda:calibrate's leave-one-out error: each cell predicted with the offset of its group's other cells. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeCell } from '../../metrics/core/cell.ts';
import { leaveOneOutOf } from '../../metrics/pipeline/lambda-calibrate.ts';

const row = (routes: number, estimate: number, real: number) => ({
  cell: makeCell({ framework: 'hono', variant: 'validated', routes, runtime: 'nodejs22.x', build: 'plain', compileCache: 'off' }),
  memoryMB: 1024,
  estimate: { p50: estimate },
  real: { p50: real, p95: real, n: 10 },
});

describe('leave-one-out error of a fitted calibration', () => {
  it('predicts each cell with the median offset of the others', () => {
    // offsets (real − estimate): +20, +40, +60
    const result = leaveOneOutOf([row(1, 100, 120), row(100, 200, 240), row(1000, 300, 360)]);
    // cell 1: others' offsets 40, 60 → median 50 → 150 against 120: +25 %
    assert.deepEqual(
      result.map((r) => [r.predictedMs, r.errorPct]),
      [
        [150, 25],
        [240, 0],
        [330, -8.3],
      ],
    );
    assert.equal(result[0]!.realMs, 120);
  });

  it('has none for a group of one cell', () => {
    assert.deepEqual(leaveOneOutOf([row(1, 100, 120)]), []);
  });
});
