/** `--export-json FILE`: a run's (or a report's) summaries in hyperfine's JSON shape. */
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { UsageError } from '../core/errors.ts';
import type { Metric } from '../core/samples.ts';
import { writeHyperfineExport } from '../report/hyperfine-json.ts';

export interface ExportJson {
  file: string;
  metric: Metric;
}

/** Write the export when asked; a file that cannot be written is a UsageError naming it. */
export function writeExport(exported: ExportJson | undefined, summaries: CellSummary[]): void {
  if (!exported) return;
  const file = path.resolve(exported.file);
  try {
    writeHyperfineExport(file, summaries, exported.metric);
  } catch (error) {
    throw new UsageError(`--export-json: cannot write ${file}: ${(error as Error).message}`);
  }
}
