/**
 * A cell is one measured configuration. Every stage (plan, runner, samples, aggregation, every
 * output) carries the same record. Its dimensions are the rows of the table in dimensions.ts: the
 * key, the label, the stored values, the order, the parsing and the shown (CSV) columns below are
 * loops over that table, so a new row changes all of them and nothing here.
 */
import path from 'node:path';
import { generatedRelativePath, GENERATED_DIR } from './paths.ts';
import {
  APP_SOURCE,
  CELL_DIMENSIONS,
  DIMENSION_TABLE,
  rowHolds,
  type Cell,
  type CellDimension,
  type DimensionTable,
  type RequiredDimension,
  fileTargetOf,
} from './dimensions.ts';
import { targetKind } from './kinds.ts';

export type { Cell } from './dimensions.ts';
export { APP_SOURCE, CELL_DIMENSIONS };
export type Dimension = CellDimension;

/** A cell of any table: one value per row. */
export type AnyCell = Readonly<Record<string, string | number>>;

/** The cell functions of one table (and the file name of a cell, which its label starts with). */
export interface CellFunctions {
  /** the dimensions, in the order tables show and sort them */
  dimensions: readonly string[];
  /** the dimensions a set of cells shows (its CSV columns): every one, a tagged one only when some cell leaves its stored value */
  shownDimensions(cells: readonly AnyCell[]): string[];
  /** every absent field given its stored value */
  makeCell(fields: Readonly<Record<string, string | number | undefined>>): AnyCell;
  cellKey(cell: AnyCell): string;
  cellLabel(cell: AnyCell): string;
  compareCells(a: AnyCell, b: AnyCell): number;
  /** a cell out of untrusted JSON, or undefined */
  parseCell(value: unknown): AnyCell | undefined;
}

/** Rows in the order of a place they each have (their key's, their label's). */
function placed(table: DimensionTable, at: (d: string) => number | undefined): string[] {
  return Object.keys(table)
    .filter((d) => at(d) !== undefined)
    .sort((a, b) => at(a)! - at(b)!);
}

/** The cell functions over `table`; `fileOf` names a cell's file (its label's start). */
export function cellFunctions(table: DimensionTable, fileOf: (cell: AnyCell) => string): CellFunctions {
  const dimensions = Object.keys(table);
  const row = (d: string) => table[d]!;
  const keyOrder = placed(table, (d) => row(d).key.at);
  const labelOrder = placed(table, (d) => {
    const label = row(d).label;
    return label === 'file' ? undefined : label.at;
  });
  const leavesStored = (cell: AnyCell, d: string) => cell[d] !== row(d).stored;
  const shownOnlyWhenSet = (d: string) => row(d).key.tagged === true;
  const rank = (d: string, value: string | number) => {
    const values = row(d).values as readonly (string | number)[];
    return values.includes(value) ? values.indexOf(value) : values.length;
  };
  const makeCell = (fields: Readonly<Record<string, string | number | undefined>>): AnyCell =>
    Object.fromEntries(dimensions.map((d) => [d, fields[d] ?? row(d).stored!]));
  return {
    dimensions,
    shownDimensions: (cells) => dimensions.filter((d) => !shownOnlyWhenSet(d) || cells.some((c) => leavesStored(c, d))),
    makeCell,
    cellKey(cell) {
      // untagged rows always show their value; tagged ones (added later) `name=value`, only when they leave `stored`
      const parts = keyOrder.map((d) => (!shownOnlyWhenSet(d) ? String(cell[d]) : leavesStored(cell, d) ? `${d}=${cell[d]}` : undefined));
      return parts.filter((p) => p !== undefined).join('|');
    },
    cellLabel(cell) {
      const extras = labelOrder.flatMap((d) => {
        const label = row(d).label as Exclude<DimensionTable[string]['label'], 'file'>;
        const value = cell[d]!;
        if (!leavesStored(cell, d) || label.inFileName?.(value, cell)) return [];
        return [label.show ? label.show(value) : `${d}=${value}`];
      });
      return extras.length ? `${fileOf(cell)} [${extras.join(', ')}]` : fileOf(cell);
    },
    compareCells(a, b) {
      for (const d of dimensions) {
        const x = a[d]!;
        const y = b[d]!;
        if (x === y) continue;
        if (row(d).sortByValues && rank(d, x) !== rank(d, y)) return rank(d, x) - rank(d, y);
        if (typeof x === 'number' && typeof y === 'number') return x - y;
        if (row(d).sortNumeric) return String(x).localeCompare(String(y), 'en', { numeric: true }) || (String(x) < String(y) ? -1 : 1);
        return String(x) < String(y) ? -1 : 1;
      }
      return 0;
    },
    parseCell(value) {
      if (value === null || typeof value !== 'object') return undefined;
      const v = value as Record<string, unknown>;
      // a field absent from an old record holds the row's stored value; a value not of its row makes the record no cell
      const ok = dimensions.every((d) => (v[d] === undefined ? row(d).stored !== undefined : rowHolds(row(d), v[d])));
      return ok ? makeCell(v as Record<string, string | number | undefined>) : undefined;
    },
  };
}

/**
 * The generated file a cell runs, relative to generated/ (Lambda cells, local or imported, run the
 * Lambda file); for the user's own app (`source` app), `app:<name>` (`lambda/app:<name>` for a handler,
 * `lambda/eager/app:<name>` for its eager cell).
 */
export function cellFile(cell: Cell): string {
  // a handler's eager cell (its --init-export awaited in INIT) in lambda/eager/, as a generated eager file
  if (cell.source === APP_SOURCE)
    return `${targetKind(cell.target).handler ? `lambda/${cell.init === 'eager' ? 'eager/' : ''}` : ''}app:${cell.framework}`;
  const shaped = { shape: cell.shape, schema: cell.schema, init: cell.init };
  return generatedRelativePath(cell.framework, cell.variant, cell.routes, fileTargetOf(cell.target), shaped);
}

export function cellFilePath(cell: Cell): string {
  return path.join(GENERATED_DIR, cellFile(cell));
}

/** The cell functions of the table in dimensions.ts (every cell of every run). */
const CELLS = cellFunctions(DIMENSION_TABLE, (cell) => cellFile(cell as Cell));

/** The dimensions a set of cells shows: every one, but a tagged one only when some cell leaves its stored value. */
export function shownDimensions(cells: readonly Cell[]): Dimension[] {
  return CELLS.shownDimensions(cells) as Dimension[];
}

/** What makeCell takes: the fields every cell holds, and any other (an absent one takes its row's stored value). */
export type CellFields = Pick<Cell, RequiredDimension> & Partial<Cell>;

export function makeCell(fields: CellFields): Cell {
  return CELLS.makeCell(fields) as Cell;
}

/** A stable identity for grouping (the bootstrap seeds derive from it, so it never changes for a cell). */
export function cellKey(cell: Cell): string {
  return CELLS.cellKey(cell);
}

/** A cell's row label: its file, `N-startup-F-routes.js` (`lambda/…` for a Lambda cell), with the non-default dimensions after it. */
export function cellLabel(cell: Cell): string {
  return CELLS.cellLabel(cell);
}

/** Sort by framework, variant, then routes numerically, then the other dimensions (in the table's order). */
export function compareCells(a: Cell, b: Cell): number {
  return CELLS.compareCells(a, b);
}

/**
 * Parse a cell out of untrusted JSON (samples.jsonl); undefined when it is not one. Named values
 * (frameworks, runtimes…) pass the table's checks (a name of letters, digits and `._+:@/-`), so a
 * stored cell cannot bring markup, a path out of generated/ or a line break into a label or a report.
 */
export function parseCell(value: unknown): Cell | undefined {
  return CELLS.parseCell(value) as Cell | undefined;
}
