/**
 * `lambda:run --estimate RUN`: the plan's cost priced from the tool's own estimate instead of an assumed
 * 1,000 ms a cold start. RUN is a local run of the same cells (`run --target lambda`, `measure --handler`):
 * each function's cell (its framework or handler name, route count, variant and init mode, read from its name)
 * at each memory size, runtime line and architecture is priced at the Billed Duration the run estimated for it
 * (the estimate the report shows: Init + Duration, calibration.ts). A cell the run has no estimate of keeps the
 * assumption, and the plan says how many did.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import { cellKey } from '../core/cell.ts';
import { displayPath } from '../core/display.ts';
import { UsageError } from '../core/errors.ts';
import { parseFunctionName } from '../core/function-name.ts';
import { isLocalHandler } from '../core/kinds.ts';
import { storedValue } from '../core/dimensions.ts';
import { loadRun } from '../report/write.ts';

/** What a planned function is priced by: its packaged name, its runtime line and its architecture. */
export interface PricedFunction {
  packaged: { name: string };
  runtime: string;
  architecture: string;
}

/** An estimate found for one function at one memory size: its Billed Duration, and the build the run estimated. */
export interface FoundEstimate {
  billedMs: number;
  build: string;
}

export interface PlanEstimates {
  /** the run folder, as the plan names it */
  source: string;
  /** the estimate of `fn` at `memoryMB`, or undefined when the run has none */
  of(fn: PricedFunction, memoryMB: number): FoundEstimate | undefined;
}

const matchKey = (parts: { framework: string; variant: string; routes: number; init: string; memoryMB: number; runtime: string }) =>
  `${parts.framework}|${parts.variant}|${parts.routes}|${parts.init}|${parts.memoryMB}|${parts.runtime}`;

/** A function ships a bundle: of two estimates of one cell, a bundled build's is the nearer. */
const buildRank = (build: string) => (build === 'bundle' ? 0 : build === 'bundle-min' ? 1 : 2);

/** The estimates of a local run, by architecture and cell. */
function estimateIndex(
  summaries: readonly CellSummary[],
  calibrations: readonly { architecture: string; calibration: ReadonlyMap<string, Calibration> }[],
) {
  const index = new Map<string, FoundEstimate>();
  for (const { architecture, calibration } of calibrations) {
    for (const s of summaries) {
      if (!isLocalHandler(s.cell.target)) continue;
      const c = calibration.get(cellKey(s.cell));
      if (c?.billedEstimate === undefined) continue;
      const key = `${architecture}|${matchKey({ ...s.cell, init: s.cell.init === 'eager' ? 'eager' : 'lazy', memoryMB: c.memoryMB })}`;
      const found = { billedMs: c.billedEstimate, build: s.cell.build };
      const held = index.get(key);
      if (!held || buildRank(found.build) < buildRank(held.build)) index.set(key, found);
    }
  }
  return index;
}

/** The estimates of run folder `dir`; one line, exit 2, when it is not a run folder or holds no Lambda estimate. */
export function planEstimatesOf(dir: string): PlanEstimates {
  let run;
  try {
    run = loadRun(dir);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`--estimate: ${error.message}`);
    throw error;
  }
  const index = estimateIndex(run.summaries, run.calibrations);
  if (index.size === 0)
    throw new UsageError(
      `--estimate ${displayPath(dir)}: the run holds no Lambda estimate (a local run of Lambda cells makes one: ` +
        '`run --target lambda`, `measure --handler`)',
    );
  return {
    source: displayPath(dir),
    of(fn, memoryMB) {
      const cell = parseFunctionName(fn.packaged.name);
      if (!cell) return undefined;
      // a name without -eager is the lazy handler, the row's stored value
      const key = matchKey({ ...cell, init: cell.init ?? storedValue('init'), memoryMB, runtime: fn.runtime });
      return index.get(`${fn.architecture}|${key}`);
    },
  };
}
