/**
 * hyperfine's JSON shape (`hyperfine --export-json`): the format itself, and a run's own results
 * written in it (`run --export-json FILE`, `report DIR --export-json FILE`), so that tools that read
 * hyperfine's output read ours.
 *
 *   {"results": [{"command": "<cell label>", "mean": s, "stddev": s | null, "median": s, "min": s,
 *                 "max": s, "times": [s, …], "parameters": {"framework": "…", "variant": "…",
 *                 "routes": "…", "runtime": "…", "build": "…", "compileCache": "…"}}]}
 *
 * Every time is in SECONDS and parameter values are strings, as hyperfine writes them. `times` are
 * one metric of every successful sample (firstResponse by default), on the runner's spawn timeline.
 */
import { writeFileWhole } from '../store/files.ts';
import { jsonFileText } from '../core/escape.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cellLabel, shownDimensions, type Cell } from '../core/cell.ts';
import type { HyperfineFile, HyperfineResult } from '../core/hyperfine.ts';
import { DEFAULT_EXPORT_METRIC, type Metric } from '../core/samples.ts';

/** Where a file came from; hyperfine's readers look at `results` only. */
export interface ExportInfo {
  tool: 'coldstart';
  /** which of the runner's metrics `times` hold */
  metric: Metric;
  unit: 'seconds';
  /** what the times are measured from */
  origin: 'the runner spawning the process';
}

/** A cell's dimensions as hyperfine parameters (strings). */
export function cellParameters(cell: Cell): Record<string, string> {
  return Object.fromEntries(shownDimensions([cell]).map((d) => [d, String(cell[d])]));
}

/** The run's results in hyperfine's shape; a cell without a successful sample has no entry. */
export function hyperfineExport(summaries: CellSummary[], metric: Metric = DEFAULT_EXPORT_METRIC): HyperfineFile<ExportInfo> {
  const seconds = (value: number) => value / 1000;
  const results: HyperfineResult[] = [];
  for (const summary of summaries) {
    const stats = summary.metrics[metric];
    if (!stats) continue;
    results.push({
      command: cellLabel(summary.cell),
      mean: seconds(stats.mean),
      stddev: stats.stddev === undefined ? null : seconds(stats.stddev),
      median: seconds(stats.median),
      min: seconds(stats.min),
      max: seconds(stats.max),
      times: stats.values.map(seconds),
      parameters: cellParameters(summary.cell),
    });
  }
  return { results, coldstart: { tool: 'coldstart', metric, unit: 'seconds', origin: 'the runner spawning the process' } };
}

export function writeHyperfineExport(file: string, summaries: CellSummary[], metric: Metric = DEFAULT_EXPORT_METRIC): void {
  writeFileWhole(file, jsonFileText(hyperfineExport(summaries, metric), 2) + '\n');
}
