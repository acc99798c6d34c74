/**
 * The cells that exist but cannot run, whatever the machine, as rows: each a test of the cell and the
 * reason it gives (with what to change). The planner (plan/cells.ts, plan/apps.ts) gives these
 * reasons to such cells, and core/run-spec.ts selectionRefusal refuses a spec whose every cell has
 * one. (The values a cell never takes are core/cell-space.ts EXCLUSIONS.)
 */
import { isCounted, type Bootstrap, type FileCache, type Measure } from './dimensions.ts';
import { isLambdaRuntimeLine, LAMBDA_RUNTIME_NAMES } from './lambda-platform.ts';

/** The values of a cell that decide whether it can run (a Cell has them all). */
export interface CellRunValues {
  target: string;
  measure: Measure;
  memory: number;
  runtime: string;
  bootstrap: Bootstrap;
  fileCache: FileCache;
}

/** A reason a counted cell cannot be counted: `when` it holds of the cell at its runtime's kind (`node` or `bun`). */
interface CountBlock {
  when: (cell: CellRunValues, runtimeKind: string) => boolean;
  reason: string;
}

/** Why a counted cell cannot be counted, one row a reason. */
export const COUNT_BLOCKS: readonly CountBlock[] = [
  // not counted on Bun: valgrind counts node's phases at the probe's marks
  { when: (_cell, kind) => kind !== 'node', reason: 'instructions are counted for node runtimes only (--runtime)' },
  {
    when: (cell) => cell.memory > 0,
    reason: 'instruction counts do not depend on the CPU share or memory limit of a memory size (--lambda-memory)',
  },
  // the cuts are the probe's marks; the Runtime Interface Client prints none
  {
    when: (cell) => cell.target === 'lambda' && cell.bootstrap !== 'probe',
    reason: "a Lambda cell is counted at the probe's marks: use --lambda-bootstrap probe",
  },
  // the kernel's reading of the files is not counted, so an evicted file cache changes no count
  {
    when: (cell) => cell.fileCache === 'cold',
    reason: 'a cold file cache changes no instruction count (the kernel is not counted): use --file-cache warm',
  },
];

/** Why a cell's Runtime Interface Client cannot start: the client runs only on a Lambda runtime line (it needs Node >= 22). */
export function ricBlock(cell: CellRunValues): string | undefined {
  if (cell.target !== 'lambda' || cell.bootstrap === 'probe' || isLambdaRuntimeLine(cell.runtime)) return undefined;
  return (
    `the Runtime Interface Client starts on a Lambda runtime line (${LAMBDA_RUNTIME_NAMES.join(', ')}), not on ${cell.runtime}: ` +
    'add a line to --lambda-runtime or use --lambda-bootstrap probe'
  );
}

/**
 * Why a counted cell cannot be counted (every reason of COUNT_BLOCKS that holds, in its order); none for a timed cell.
 * `runtimeKind`: `node` or `bun` (a resolved runtime's kind; before resolving, the runtime's name says it).
 */
export function countBlocks(cell: CellRunValues, runtimeKind: string): string[] {
  if (!isCounted(cell)) return [];
  return COUNT_BLOCKS.filter((block) => block.when(cell, runtimeKind)).map((block) => block.reason);
}

/**
 * THE rule of a cell that cannot run whatever the machine, or undefined: it cannot be counted, or its
 * client cannot start.
 */
export function cellBlock(cell: CellRunValues, runtimeKind: string): string | undefined {
  const reasons = countBlocks(cell, runtimeKind);
  return reasons.length ? reasons.join('; ') : ricBlock(cell);
}
