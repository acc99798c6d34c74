/** `--export-json FILE`: a run's (or a report's) summaries in hyperfine's JSON shape. */
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { EnvironmentError } from '../core/errors.ts';
import type { Metric } from '../core/samples.ts';
import { writeHyperfineExport } from '../report/hyperfine-json.ts';

export interface ExportJson {
  file: string;
  metric: Metric;
}

/** Write the export when asked; a file the machine refuses is an EnvironmentError naming it (exit 4). */
export function writeExport(exported: ExportJson | undefined, summaries: CellSummary[]): void {
  if (!exported) return;
  const file = path.resolve(exported.file);
  try {
    writeHyperfineExport(file, summaries, exported.metric);
  } catch (error) {
    // the machine's refusal (a full disk, no permission) stays one: exit 4, not a usage error
    if (error instanceof EnvironmentError) throw new EnvironmentError(`--export-json: ${error.message}`);
    throw error;
  }
}
