/**
 * The shape of a row of the dimension table (dimensions.ts, run-dimensions.ts): its values, stored value,
 * CLI default, flags, key, label, lever, meta.json list and how the planner multiplies cells by it (`plan`), and
 * `dimension`, which checks a row and keeps its
 * literal type.
 */
import type { Target } from './dimension-values.ts';

// ---- the table ----

/** The two targets a run chooses between; the other rows' CLI defaults may differ by it. */
export type TargetName = Target;
/** The --help group a flag is listed in. */
export type FlagGroup = 'selection' | 'levers' | 'lambda' | 'cost' | 'sampling';

/** What a flag's help may depend on: the command it is on. */
export interface FlagContext {
  /** the command's word for a cell (`cell` for run, `app` for measure) */
  what: string;
  /** whether the command has Lambda cells too (its --runtime is then the servers') */
  lambda: boolean;
}

/**
 * The planner's stages, in the order a run's cells are made (core/cell-space.ts): the files written
 * (`file`), each at the package versions it requires (`version`), each run at its memory sizes and
 * measures (`run`), then multiplied by the levers (`lever`).
 */
export type PlanStage = 'file' | 'version' | 'run' | 'lever';

/** One command-line flag of a dimension. */
export interface DimensionFlag {
  flag: `--${string}`;
  short?: `-${string}`;
  /** the argument's name in help (`<list>`) */
  arg: string;
  group: FlagGroup;
  /** when the flag sets the dimension only for cells of one target (`--runtime` servers, `--lambda-runtime` Lambda cells) */
  target?: TargetName;
  /** the --help text, without the default (which --help adds from the row's `cli`) */
  help: string | ((on: FlagContext) => string);
  /** the text --help shows for the default, when not the row's `cli` list joined by commas; `''`: none shown */
  defaultText?: string;
  /** an old spelling still accepted, hidden from --help (the help says it) */
  alias?: `--${string}`;
}

export interface Dimension<V extends string | number> {
  /** the closed set of values (checked on the command line and in samples.jsonl), or `open` with a check */
  values: readonly V[] | 'open';
  /** for open dimensions: whether an untrusted value is one */
  valid?: (value: unknown) => value is V;
  /** what an absent field in a stored record means; absent: every record holds the field. NEVER changes. */
  stored?: V;
  /** what a run takes when the flag is absent, per target where the targets differ; absent: no default (the command decides) */
  cli?: readonly V[] | Readonly<Record<TargetName, readonly V[]>>;
  flags: readonly DimensionFlag[];
  /** what the dimension is, in a few words */
  help: string;
  /**
   * Its place in the cell key; `tagged` ones (added after runs were first recorded) appear as
   * `name=value`, and only when they leave `stored`, so older keys stay what they were.
   */
  key?: { at: number; tagged?: true };
  /**
   * its place among the `[name=value, …]` extras of a cell's label (shown when ≠ stored), and how its
   * value reads there; `file`: the cell's file name (cellFile) already says it
   */
  label?: 'file' | { at: number; show?: (value: V) => string; inFileName?: (value: V, cell: Readonly<Record<string, unknown>>) => boolean };
  /** tables sort its values in the order of `values` (else numbers numerically, text alphabetically) */
  sortByValues?: true;
  /** text sorted with its digit runs as numbers (`fastify@4.5.0` before `fastify@4.10.0`) */
  sortNumeric?: true;
  /**
   * its lever table's place in levers.md; `workload`: it describes the app, so it never counts as "the lever that helps";
   * `change`: a choice of how the app is built or deployed, so each of its values is a variant of the levers' answer table
   */
  lever?: { rank: number; workload?: true; change?: true };
  /** meta.json's options list that holds its values in the order given (the lever tables' column order) */
  metaList?: string;
  /** the measure dimension only: its value whose cells are counted under valgrind rather than timed */
  counted?: V;
  /** false: the HTML report's charts draw it anyway (series, axis) or it never varies within timed cells, so it gets no toggle */
  toggle?: false;
  /**
   * How the planner multiplies the cells by it (core/cell-space.ts cellsOf): in its `stage` (a stage's
   * rows vary in the table's order, the first slowest), by the spec's `list` of its values (a list of
   * the generated source or of CellSpec), or by one list per target where the targets read different
   * ones; absent: the command sets it (source). A row whose `cli` is empty (no default) stands at its
   * `stored` value when its list is empty.
   */
  plan?: { stage: PlanStage; list: string | Readonly<Record<TargetName, string>> };
}

/** The type of a row's values, carried by the row's type alone. */
declare const VALUE: unique symbol;
export type Typed<V> = { readonly [VALUE]?: V };
/** A row: checked against Dimension<V>, its literal shape kept (so types can ask which rows have a lever, a stored value…). */
export const dimension =
  <V extends string | number>() =>
  <const R extends Dimension<V>>(row: R): R & Typed<V> =>
    row;
export const isNonNegativeInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
export const list = (values: readonly (string | number)[]) => values.join(', ');

/** Whether `value` is one of the row's values (for open dimensions: passes its check). */
export function rowHolds(row: Dimension<string | number>, value: unknown): boolean {
  if (row.values === 'open') return row.valid?.(value) ?? false;
  return (row.values as readonly unknown[]).includes(value);
}

/** A row's CLI default for cells of `target` (a copy: the spec's lists are its own). */
export function cliList<V extends string | number>(row: Pick<Dimension<V>, 'cli'>, target: TargetName): V[] | undefined {
  const cli = row.cli;
  if (cli === undefined) return undefined;
  const values: readonly V[] = Array.isArray(cli) ? (cli as readonly V[]) : (cli as Readonly<Record<TargetName, readonly V[]>>)[target];
  return [...values];
}
