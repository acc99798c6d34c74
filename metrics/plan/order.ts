/** The order of a run: warm-ups first, then samples interleaved across cells (or as asked). */
import seedrandom from 'seedrandom';
import type { Cell } from '../core/cell.ts';
import type { SampleRecord } from '../core/samples.ts';
import type { PlannedCell } from './cells.ts';
import { isCounted, type Order } from '../core/dimensions.ts';

export interface PlannedRun {
  cell: Cell;
  /** the cell's launch, contract and blocked state */
  planned: PlannedCell;
  phase: SampleRecord['phase'];
  index: number;
  /** this run also checks that an invalid body is rejected (the cell's first run) */
  checkInvalidBody: boolean;
}

export interface PlanOptions {
  samples: number;
  warmup: number;
  order: Order;
  /** seed for `random` order, so a plan can be repeated */
  seed: string;
  /** samples of a counted cell (measure `instructions`), which gets no warm-up: counts do not depend on the file cache */
  countSamples: number;
}

/** An unsupported cell runs nothing: one record says why, not one per warm-up and sample. */
const isUnsupported = (cell: PlannedCell) => cell.blocked?.kind === 'unsupported';

/**
 * The planned runs: each timed cell's warm-ups, then its samples (a counted cell's samples only). An
 * unsupported cell gets one planned sample, whose record carries the reason (older run folders hold one
 * such record per warm-up and sample: they read the same).
 */
export function buildPlan(cells: PlannedCell[], options: PlanOptions): PlannedRun[] {
  const warmups: PlannedRun[] = [];
  const samplesOf = (cell: PlannedCell) => {
    if (isUnsupported(cell)) return 1;
    return isCounted(cell.cell) ? options.countSamples : options.samples;
  };
  for (const cell of cells) {
    if (isCounted(cell.cell) || isUnsupported(cell)) continue;
    for (let w = 1; w <= options.warmup; w++)
      warmups.push({ cell: cell.cell, planned: cell, phase: 'warmup', index: w, checkInvalidBody: false });
  }
  const samples: PlannedRun[] = [];
  if (options.order === 'sequential') {
    for (const cell of cells) {
      for (let s = 1; s <= samplesOf(cell); s++)
        samples.push({ cell: cell.cell, planned: cell, phase: 'sample', index: s, checkInvalidBody: false });
    }
  } else {
    const rounds = Math.max(0, ...cells.map(samplesOf));
    for (let s = 1; s <= rounds; s++) {
      for (const cell of cells) {
        if (s <= samplesOf(cell)) samples.push({ cell: cell.cell, planned: cell, phase: 'sample', index: s, checkInvalidBody: false });
      }
    }
    if (options.order === 'random') shuffle(samples, seedrandom(options.seed));
  }
  const plan = [...warmups, ...samples];
  // the invalid-body check rides on each validating cell's first run, after its timed answer
  const checked = new Set<PlannedCell>();
  for (const run of plan) {
    if (!checked.has(run.planned) && run.planned.validates) {
      run.checkInvalidBody = true;
      checked.add(run.planned);
    }
  }
  return plan;
}

function shuffle(items: unknown[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
