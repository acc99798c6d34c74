/**
 * A local run's Lambda estimates against a real run (lambda:run or lambda:import): per cell (framework,
 * routes, variant, init, memory size), the estimated Init (its median, its interval and its p95 from the
 * reference's spread, init-tails.ts) against the real Init's p50 and p95, and the error of each,
 * (estimate − real) / real. The estimate is the calibration for the real run's architecture.
 */
import { quantileSorted } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import type { Calibration } from './calibration.ts';
import { tailsOf } from './init-tails.ts';
import { cellKey, type Cell } from '../core/cell.ts';
import type { FunctionCell } from '../core/function-name.ts';
import { isLocalHandler, targetKind } from '../core/kinds.ts';

export interface EstimateAgainstReal {
  /** the local cell whose estimate it is */
  cell: Cell;
  memoryMB: number;
  estimate: { p50: number; p95?: number; interval?: { low: number; high: number } };
  real: { p50: number; p95: number; n: number };
  /** (estimate − real) / real, % */
  errorP50Pct: number;
  errorP95Pct?: number;
  /** whether the real p50 lies within the estimate's interval */
  withinInterval?: boolean;
}

const pct = (estimate: number, real: number) => ((estimate - real) / real) * 100;

// the init mode too: an eager local cell is matched with the eager function (a lazy one's init is absent or lazy)
const matchKey = (cell: FunctionCell | { framework: string; variant: string; routes: number; init?: string }, memory: number) =>
  `${cell.framework}|${cell.variant}|${cell.routes}|${memory}|${cell.init === 'eager' ? 'eager' : 'lazy'}`;

/** The rows of every local Lambda cell with an estimate that the real run measured; none when the runs share no cell. */
export function estimatesAgainstReal(
  local: readonly CellSummary[],
  calibration: ReadonlyMap<string, Calibration>,
  real: readonly CellSummary[],
  /** the real run's Lambda runtime line, when it says: only local cells of that line are matched */
  realRuntime?: string,
): EstimateAgainstReal[] {
  const realByKey = new Map<string, CellSummary>();
  for (const summary of real) {
    if (targetKind(summary.cell.target).local || !summary.lambda || summary.lambda.initMs.n === 0) continue;
    realByKey.set(matchKey(summary.cell, summary.cell.memory), summary);
  }
  const rows: EstimateAgainstReal[] = [];
  for (const summary of local) {
    const calibrated = calibration.get(cellKey(summary.cell));
    if (!isLocalHandler(summary.cell.target) || !calibrated?.init) continue;
    if (realRuntime !== undefined && summary.cell.runtime !== realRuntime) continue;
    const realCell = realByKey.get(matchKey(summary.cell, calibrated.memoryMB));
    if (!realCell) continue;
    const values = [...realCell.lambda!.initMs.values].sort((a, b) => a - b);
    const realP50 = quantileSorted(values, 0.5);
    const realP95 = quantileSorted(values, 0.95);
    const tail = tailsOf(calibrated).init;
    const { interval } = calibrated.init;
    rows.push({
      cell: summary.cell,
      memoryMB: calibrated.memoryMB,
      estimate: {
        p50: calibrated.init.estimate,
        ...(tail ? { p95: tail.p95 } : {}),
        ...(interval ? { interval: { low: interval.low, high: interval.high } } : {}),
      },
      real: { p50: realP50, p95: realP95, n: values.length },
      errorP50Pct: pct(calibrated.init.estimate, realP50),
      ...(tail ? { errorP95Pct: pct(tail.p95, realP95) } : {}),
      ...(interval ? { withinInterval: realP50 >= interval.low && realP50 <= interval.high } : {}),
    });
  }
  return rows;
}
