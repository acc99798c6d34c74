/**
 * The cells of a run, made from the dimension table and the spec: the one place where cells are
 * multiplied. Each cell row says in which stage of the planner it varies and which list of the spec
 * holds its values (`plan` in core/dimensions.ts); a stage's rows vary in the table's order, the first
 * slowest. The values a row takes on a cell are its list, except where a rule below says otherwise:
 * those rules are data (ROW_EXCLUSIONS, and the few list rules of rowValues), read by the generated cells,
 * the user's apps (`measure`), the levers, the hello-world reference, the refusal of a selection that
 * leaves nothing to run, and `verify`'s spec of the re-measurement alike. A new row with a `plan` is
 * multiplied everywhere with no change here.
 */
import { targetKind } from './kinds.ts';
import { APP_SOURCE, cliList, DIMENSION_TABLE, type DimensionTable, type PlanStage, type TargetName } from './dimensions.ts';

/** A cell being made: the values of the rows multiplied so far (a whole cell once every stage is done). */
export type PartialCell = Readonly<Record<string, string | number | undefined>>;

/** The spec's lists by name: a generated source's and CellSpec's fields, as the rows' `plan.list` names them. */
export type SpecLists = object;

/** What only the caller knows of a cell: whether a user's handler has an eager form (it names an --init-export). */
export interface CellFacts {
  eagerForm?: (cell: PartialCell) => boolean;
}

/**
 * A row held at one value on some cells, whatever the spec's list: its stored value (a value those cells do
 * not have), or the platform's only one.
 */
export interface Exclusion {
  dimension: string;
  /** the cells it holds (a test of the values multiplied before it) */
  when: (cell: PartialCell, facts: CellFacts) => boolean;
  /** the value it holds them at, when not the row's stored value */
  value?: (cell: PartialCell) => string | number;
  why: string;
}

/** The kind of a cell's target (core/kinds.ts), once the cell has one. */
const kindOf = (cell: PartialCell) => (cell.target === undefined ? undefined : targetKind(String(cell.target)));

/** The exclusions: the values some cells never take. */
export const ROW_EXCLUSIONS: readonly Exclusion[] = [
  { dimension: 'init', when: (c) => kindOf(c)?.initModes === false, why: 'no eager form: a server has no INIT' },
  {
    dimension: 'init',
    when: (c, facts) => c.source === APP_SOURCE && !(facts.eagerForm?.(c) ?? false),
    why: "no eager form: a user's handler without --init-export initialises as it is written",
  },
  {
    dimension: 'bootstrap',
    when: (c) => kindOf(c)?.handler === false,
    why: 'a server starts as itself (its stored bootstrap, probe): it has no Runtime API client',
  },
  {
    dimension: 'memory',
    when: (c) => kindOf(c)?.caps !== undefined,
    why: 'a Lambda Web Function has its fixed 2 vCPUs and 2 GB (its caps), no memory size of its own',
  },
  {
    dimension: 'runtime',
    when: (c) => kindOf(c)?.runtimeLine !== undefined,
    value: (c) => kindOf(c)!.runtimeLine!,
    why: 'Lambda Web Functions run on nodejs24.x only',
  },
];

/** The exclusion that holds row `d` on `cell`, if one does. */
function heldBy(d: string, cell: PartialCell, facts: CellFacts): Exclusion | undefined {
  return ROW_EXCLUSIONS.find((e) => e.dimension === d && e.when(cell, facts));
}

/** The rows a stage of the planner multiplies by, in the table's order. */
export function stageDimensions(stage: PlanStage, table: DimensionTable = DIMENSION_TABLE): string[] {
  return Object.keys(table).filter((d) => table[d]!.plan?.stage === stage);
}

/** The rows that the planner multiplies by, in every stage (the rows the spec holds a list of). */
export function plannedDimensions(table: DimensionTable = DIMENSION_TABLE): string[] {
  return Object.keys(table).filter((d) => table[d]!.plan);
}

/** The name of the spec's list that row `d` reads for cells of `target` (undefined: the row has none for it). */
export function listName(d: string, target: string, table: DimensionTable = DIMENSION_TABLE): string | undefined {
  const list = table[d]?.plan?.list;
  return typeof list === 'string' ? list : list?.[target as TargetName];
}

/** Whether a row has no default list (`cli: []`): an empty list of it means its stored value (memory 0, the installed version). */
function noneByDefault(d: string, table: DimensionTable): boolean {
  const cli = table[d]!.cli;
  return Array.isArray(cli) && cli.length === 0;
}

/**
 * The values row `d` takes on `cell`: the value an exclusion holds it at (its stored one unless it says); else its list in
 * the spec (for the cell's target); `by-target` there, the row's default for the target; an empty list
 * of a row without a default, its stored value; no such list in the spec (an app's own name, kind and
 * route count), the value the cell has (else the stored one).
 */
export function rowValues(
  d: string,
  cell: PartialCell,
  lists: SpecLists,
  table: DimensionTable = DIMENSION_TABLE,
  facts: CellFacts = {},
): readonly (string | number)[] {
  const row = table[d]!;
  const held = heldBy(d, cell, facts);
  if (held) return [held.value?.(cell) ?? row.stored!];
  const name = listName(d, String(cell.target), table);
  const list = name === undefined ? undefined : (lists as Readonly<Record<string, unknown>>)[name];
  if (list === undefined) return [cell[d] ?? row.stored!];
  if (list === 'by-target') return cliList(row, cell.target as TargetName) ?? [];
  const values = list as readonly (string | number)[];
  return values.length === 0 && noneByDefault(d, table) ? [row.stored!] : values;
}

/**
 * Every cell of `bases` × the values of each row in `dimensions` (the first varying slowest), each
 * row's values read for the cell made so far (rowValues): the one loop that makes cells.
 */
export function cellsOf(
  bases: readonly PartialCell[],
  dimensions: readonly string[],
  lists: SpecLists,
  options: { table?: DimensionTable; facts?: CellFacts } = {},
): PartialCell[] {
  const table = options.table ?? DIMENSION_TABLE;
  const out: PartialCell[] = [];
  const grow = (cell: PartialCell, at: number): void => {
    if (at === dimensions.length) {
      out.push(cell);
      return;
    }
    const d = dimensions[at]!;
    for (const value of rowValues(d, cell, lists, table, options.facts)) grow({ ...cell, [d]: value }, at + 1);
  };
  for (const base of bases) grow(base, 0);
  return out;
}

/**
 * The spec's list of each planned row that gives exactly `cell` (what `verify` re-measures a cell
 * with): one value a list, for the cell's target; none for a row an exclusion holds on it, or whose
 * stored value of a row without a default is an empty list.
 */
export function listsOfCell(cell: PartialCell, table: DimensionTable = DIMENSION_TABLE, facts: CellFacts = {}): Record<string, unknown[]> {
  const lists: Record<string, unknown[]> = {};
  for (const d of plannedDimensions(table)) {
    const name = listName(d, String(cell.target), table);
    if (name === undefined || heldBy(d, cell, facts)) continue;
    lists[name] = cell[d] === table[d]!.stored && noneByDefault(d, table) ? [] : [cell[d]];
  }
  return lists;
}
