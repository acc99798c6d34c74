/**
 * hyperfine.json in a run folder: matching its results back to cells, and the
 * cross-check of the runner's `listen` against hyperfine's process time (exec to exit) per cell.
 * The file's format is core/hyperfine.ts, its reader store/hyperfine-file.ts; the report shows the result.
 */
import { median } from 'simple-statistics';
import type { CellSummary } from './aggregate.ts';
import { cellKey, cellLabel, compareCells, parseCell, type Cell } from '../core/cell.ts';
import type { HyperfineFile, HyperfineResult, HyperfineRunInfo } from '../core/hyperfine.ts';

/** The cell a result measured, from its parameters (framework, variant, routes, …); undefined without them. */
export function cellOfResult(result: HyperfineResult): Cell | undefined {
  const p = result.parameters;
  if (!p || p.framework === undefined || p.variant === undefined || p.routes === undefined) return undefined;
  const routes = /^\d+$/.test(p.routes) ? Number(p.routes) : NaN;
  return parseCell({ ...p, routes });
}

export interface Matched {
  /** cellKey → hyperfine's result for that cell */
  byCell: Map<string, HyperfineResult>;
  /** results that match no cell of the run */
  unmatched: HyperfineResult[];
}

/** Match results to the run's cells: by parameters when they carry a cell, else by the command name (the cell label). */
export function matchResults(summaries: CellSummary[], results: HyperfineResult[]): Matched {
  const keys = new Set(summaries.map((s) => cellKey(s.cell)));
  const byLabel = new Map(summaries.map((s) => [cellLabel(s.cell), cellKey(s.cell)]));
  const byCell = new Map<string, HyperfineResult>();
  const unmatched: HyperfineResult[] = [];
  for (const result of results) {
    const cell = cellOfResult(result);
    const key = cell ? cellKey(cell) : byLabel.get(result.command);
    if (key !== undefined && keys.has(key) && !byCell.has(key)) byCell.set(key, result);
    else unmatched.push(result);
  }
  return { byCell, unmatched };
}

/**
 * The runner's listen runs from its spawn call to the server accepting connections; hyperfine's
 * process time runs from exec to exit, so under the same conditions it holds listen plus the exit
 * (COLDSTART_EXIT=1 exits right after the ready line): listen < process. The two are measured at
 * different times on a shared machine, so a verdict needs the whole spread, not just the medians:
 * - above: EVERY runner sample is slower than EVERY hyperfine run (listen min > process max);
 * - far below: EVERY runner sample is under half of EVERY hyperfine run (listen max < 0.5 × process min).
 * Either means a clock is wrong, something outside the runner's view (a slow exit, another
 * environment) dominates, or the machine's load changed between the two runs: re-run both to tell.
 */
export const FAR_BELOW_RATIO = 0.5;

export type Verdict = 'ok' | 'runner above hyperfine' | 'runner far below hyperfine' | 'no runner figure' | 'no hyperfine figure';

/** Median, min and max of one side, in ms. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface CrossCheckRow {
  cell: Cell | undefined;
  label: string;
  /** the runner's listen, ms from spawn */
  listen: Spread | undefined;
  /** hyperfine's wall time, ms from exec to exit */
  process: Spread | undefined;
  runs: number | undefined;
  verdict: Verdict;
}

export function verdictOf(listen: Spread | undefined, process: Spread | undefined): Verdict {
  if (listen === undefined) return 'no runner figure';
  if (process === undefined) return 'no hyperfine figure';
  if (listen.min > process.max) return 'runner above hyperfine';
  if (listen.max < process.min * FAR_BELOW_RATIO) return 'runner far below hyperfine';
  return 'ok';
}

export function isFlagged(verdict: Verdict): boolean {
  return verdict === 'runner above hyperfine' || verdict === 'runner far below hyperfine';
}

function processSpread(result: HyperfineResult): Spread {
  return { median: result.median * 1000, min: result.min * 1000, max: result.max * 1000 };
}

export interface CrossCheck {
  file: HyperfineFile<Partial<HyperfineRunInfo>>;
  rows: CrossCheckRow[];
  /** cellKey → hyperfine's median in ms */
  processMs: Map<string, number>;
}

/** Every cell of the run and every hyperfine result, side by side. */
export function crossCheck(summaries: CellSummary[], file: HyperfineFile<Partial<HyperfineRunInfo>>): CrossCheck {
  const { byCell, unmatched } = matchResults(summaries, file.results);
  const processMs = new Map<string, number>();
  const rows: CrossCheckRow[] = summaries.map((s) => {
    const result = byCell.get(cellKey(s.cell));
    const process = result ? processSpread(result) : undefined;
    if (process) processMs.set(cellKey(s.cell), process.median);
    const stats = s.metrics.listen;
    const listen = stats ? { median: stats.median, min: stats.min, max: stats.max } : undefined;
    return { cell: s.cell, label: cellLabel(s.cell), listen, process, runs: result?.times.length, verdict: verdictOf(listen, process) };
  });
  const extra = unmatched
    .map((result) => ({ result, cell: cellOfResult(result) }))
    .sort((a, b) => (a.cell && b.cell ? compareCells(a.cell, b.cell) : a.result.command < b.result.command ? -1 : 1));
  for (const { result, cell } of extra) {
    rows.push({
      cell,
      label: cell ? cellLabel(cell) : result.command,
      listen: undefined,
      process: processSpread(result),
      runs: result.times.length,
      verdict: 'no runner figure',
    });
  }
  return { file, rows, processMs };
}

/** The gap on the cells both measured: median over cells of process − listen (ms) and of listen / process (medians). */
export function typicalGap(rows: CrossCheckRow[]): { cells: number; gapMs: number; ratio: number } | undefined {
  const both = rows.filter((r) => r.listen !== undefined && r.process !== undefined);
  if (both.length === 0) return undefined;
  return {
    cells: both.length,
    gapMs: median(both.map((r) => r.process!.median - r.listen!.median)),
    ratio: median(both.map((r) => r.listen!.median / r.process!.median)),
  };
}
