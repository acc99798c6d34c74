/**
 * The cells that cannot run whatever the machine, as rows: each says which cells it excludes and why,
 * with what to change. The planner (plan/cells.ts) gives these reasons to such cells (unsupported, not
 * failed), and run-spec.ts's selectionRefusal refuses a spec whose every cell has one. A new exclusion
 * is one row here.
 */
import { isCounted, type Bootstrap, type CellTarget, type FileCache, type Measure } from './dimensions.ts';
import { targetKind } from './kinds.ts';
import { LAMBDA_RUNTIME_NAMES, isLambdaRuntimeLine } from './lambda-platform.ts';

/** The values of a cell that decide whether it can run (a Cell has them all). */
export interface CellRunValues {
  target: CellTarget;
  measure: Measure;
  memory: number;
  runtime: string;
  bootstrap: Bootstrap;
  fileCache: FileCache;
}

/** One exclusion: `count` (the cell cannot be counted) or `client` (its Runtime Interface Client cannot start). */
interface Exclusion {
  readonly rule: 'count' | 'client';
  /** `runtimeKind`: `node` or `bun` (a resolved runtime's kind; before resolving, the runtime's name says it) */
  readonly excludes: (cell: CellRunValues, runtimeKind: string) => boolean;
  readonly reason: (cell: CellRunValues) => string;
}

export const CELL_EXCLUSIONS: readonly Exclusion[] = [
  {
    rule: 'count',
    excludes: (cell, runtimeKind) => isCounted(cell) && runtimeKind !== 'node',
    reason: () => 'instructions are counted for node runtimes only (--runtime)',
  },
  {
    rule: 'count',
    excludes: (cell) => isCounted(cell) && cell.memory > 0,
    reason: () => 'instruction counts do not depend on the CPU share or memory limit of a memory size (--lambda-memory)',
  },
  {
    // the cuts are the probe's marks; the Runtime Interface Client prints none
    rule: 'count',
    excludes: (cell) => isCounted(cell) && targetKind(cell.target).handler && cell.bootstrap !== 'probe',
    reason: () => "a Lambda cell is counted at the probe's marks: use --lambda-bootstrap probe",
  },
  {
    // the kernel's reading of the files is not counted, so an evicted file cache changes no count
    rule: 'count',
    excludes: (cell) => isCounted(cell) && cell.fileCache === 'cold',
    reason: () => 'a cold file cache changes no instruction count (the kernel is not counted): use --file-cache warm',
  },
  {
    // the client runs only on a Lambda runtime line (it needs Node >= 22)
    rule: 'client',
    excludes: (cell) => targetKind(cell.target).handler && cell.bootstrap !== 'probe' && !isLambdaRuntimeLine(cell.runtime),
    reason: (cell) =>
      `the Runtime Interface Client starts on a Lambda runtime line (${LAMBDA_RUNTIME_NAMES.join(', ')}), not on ${cell.runtime}: ` +
      'add a line to --lambda-runtime or use --lambda-bootstrap probe',
  },
];

const reasons = (rule: Exclusion['rule'], cell: CellRunValues, runtimeKind: string): string[] =>
  CELL_EXCLUSIONS.filter((e) => e.rule === rule && e.excludes(cell, runtimeKind)).map((e) => e.reason(cell));

/** Why a cell's Runtime Interface Client cannot start, or undefined. */
export function ricBlock(cell: CellRunValues): string | undefined {
  return reasons('client', cell, 'node')[0];
}

/** Why a counted cell cannot be counted (every reason, each with what to change); none for a timed cell. */
export function countBlocks(cell: CellRunValues, runtimeKind: string): string[] {
  return reasons('count', cell, runtimeKind);
}

/** THE rule of a cell that cannot run whatever the machine, or undefined: it cannot be counted, or its client cannot start. */
export function cellBlock(cell: CellRunValues, runtimeKind: string): string | undefined {
  const counted = countBlocks(cell, runtimeKind);
  return counted.length ? counted.join('; ') : ricBlock(cell);
}
