/**
 * From what the user asked for to the cells of a run, each with its resolved launch: select the
 * frameworks, generate every file, multiply by the levers (runtimes installed on demand, bundles
 * built), and decide which cells cannot run. `run`, `hyperfine` and `generate` all start here.
 */
import { contractOf } from '../../generators/contract.ts';
import { loadGenerators } from '../../generators/registry.ts';
import type { Contract, FrameworkGenerator, Variant } from '../../generators/types.ts';
import { writeGenerated } from '../../generators/write.ts';
import { cellKey, makeCell, type Cell } from '../core/cell.ts';
import type { CellLaunch } from './launch.ts';
import { DEFAULT_LEVERS, prepareLevers, type BlockedCell, type CompileCache, type LeverLists, type PreparedLevers } from './levers.ts';
import { selectFrameworks } from './selection.ts';

/** What every command that measures or generates cells is asked for. */
export interface CellOptions {
  frameworks: readonly string[] | 'all';
  routes: number[];
  variants: Variant[];
  /** the node binary of the `node` runtime */
  node: string;
  /** --runtime, --build, --compile-cache (default node, plain, off) */
  levers?: LeverLists;
}

/** A cell ready to be measured: how it starts, what it must answer, whether it can run at all. */
export interface PlannedCell {
  cell: Cell;
  /** undefined when the cell is blocked */
  launch: CellLaunch | undefined;
  blocked: BlockedCell | undefined;
  contract: Contract;
  /** its server must reject an invalid body with 4xx */
  validates: boolean;
}

export interface PreparedCells {
  selected: FrameworkGenerator[];
  /** frameworks left out of `all`: name → reason */
  skipped: Map<string, string>;
  /** every selected framework × variant × route count × lever values */
  cells: PlannedCell[];
  levers: PreparedLevers;
}

/** Select and generate only: the base cells (framework × variant × N), each file written. */
export async function generateCells(
  options: Pick<CellOptions, 'frameworks' | 'routes' | 'variants'>,
  log: (line: string) => void,
): Promise<{ selected: FrameworkGenerator[]; skipped: Map<string, string>; cells: Cell[] }> {
  const generators = await loadGenerators();
  const { selected, skipped } = selectFrameworks(options.frameworks, generators);
  for (const [name, reason] of skipped) log(`${name}: skipped (${reason})`);
  const cells: Cell[] = [];
  for (const generator of selected) {
    for (const variant of options.variants) {
      for (const routes of options.routes) cells.push(makeCell({ framework: generator.name, variant, routes }));
    }
  }
  log(`generating ${cells.length} files…`);
  const byName = new Map(selected.map((g) => [g.name, g]));
  for (const cell of cells) await writeGenerated(byName.get(cell.framework)!, cell.routes, cell.variant);
  return { selected, skipped, cells };
}

/**
 * Every cell of a run with its launch resolved. `env` is the children's clean environment (the
 * runtimes' `--version` runs with it). A runtime that cannot be installed is a UsageError.
 */
export async function prepareCells(options: CellOptions, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<PreparedCells> {
  const { selected, skipped, cells: base } = await generateCells(options, log);
  const levers = await prepareLevers(base, options.levers ?? DEFAULT_LEVERS, { node: options.node, env, log });
  const byName = new Map(selected.map((g) => [g.name, g]));
  const cells = levers.cells.map((cell): PlannedCell => {
    const key = cellKey(cell);
    const generator = byName.get(cell.framework)!;
    const blocked = levers.blocked.get(key);
    const file = levers.files.get(key);
    return {
      cell,
      launch:
        blocked || !file ? undefined : { command: levers.runtimes.get(cell.runtime)!.command, file, compileCache: cell.compileCache as CompileCache },
      blocked: blocked ?? (file ? undefined : { kind: 'failed', reason: 'no file to run' }),
      contract: contractOf(generator),
      validates: cell.variant === 'validated' || Boolean(generator.alwaysValidates),
    };
  });
  return { selected, skipped, cells, levers };
}
