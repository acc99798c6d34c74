/**
 * `--samples auto` in a run: what every timed cell has taken so far (its successful firstResponse
 * values, its failures, its last sample index) and, after each round, the next interleaved round over
 * the cells whose median is not yet known to the precision (analyse/precision.ts decides).
 */
import { decideRound, formatPrecision, type CellProgress, type PrecisionSettings } from '../analyse/precision.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { percent } from '../core/format.ts';
import type { SampleRecord } from '../core/samples.ts';
import type { PlannedCell } from '../plan/cells.ts';
import type { PlannedRun } from '../plan/order.ts';
import { isCounted } from '../core/dimensions.ts';

/** How many open cells a round's progress line names. */
const NAMED_CELLS = 4;

export class SampleRounds {
  private readonly taken: Map<string, CellProgress & { values: number[]; index: number }>;

  constructor(
    private readonly cells: readonly PlannedCell[],
    private readonly settings: PrecisionSettings,
  ) {
    // cells that run and are timed: counted and blocked cells take no rounds
    this.taken = new Map(
      cells
        .filter((c) => c.launch && !isCounted(c.cell))
        .map((c) => {
          const key = cellKey(c.cell);
          return [key, { key, seed: `coldstart|${key}|firstResponse`, values: [], failures: 0, index: 0 }];
        }),
    );
  }

  /** A recorded timed sample: its firstResponse (or its failure) counts for its cell. */
  record(sample: SampleRecord): void {
    const cell = this.taken.get(cellKey(sample.cell));
    if (!cell || sample.phase !== 'sample') return;
    cell.index = Math.max(cell.index, sample.index);
    if (sample.ok && sample.marks) cell.values.push(sample.marks.firstResponse);
    else if (!sample.unsupported) cell.failures++;
  }

  /** The runs of round `round` and its progress line, or undefined when every cell has stopped. */
  next(round: number): { runs: PlannedRun[]; note: string } | undefined {
    const decision = decideRound([...this.taken.values()], this.settings);
    if (decision.more.length === 0) return undefined;
    const runs = this.cells
      .filter((c) => decision.more.includes(cellKey(c.cell)))
      .map((c): PlannedRun => ({
        cell: c.cell,
        planned: c,
        phase: 'sample',
        index: this.taken.get(cellKey(c.cell))!.index + 1,
        checkInvalidBody: false,
      }));
    const open = decision.cells.filter((c) => !c.stopped);
    const labels = open
      .slice(0, NAMED_CELLS)
      .map((c) => `${cellLabel(this.cells.find((p) => cellKey(p.cell) === c.key)!.cell)} ${formatPrecision(c)}`);
    const more = open.length > NAMED_CELLS ? '; …' : '';
    return {
      runs,
      note: `round ${round}: ${open.length} cell(s) above ±${percent(this.settings.precision)}: ${labels.join('; ')}${more}`,
    };
  }
}
