/** Small helpers the commands share: how paths and command lines are shown, and the hyperfine-shaped export. */
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { UsageError } from '../core/errors.ts';
import type { Metric } from '../core/samples.ts';
import { writeHyperfineExport } from '../report/hyperfine-json.ts';

/** A path as the user would type it: relative under the current folder, absolute elsewhere. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' ? '.' : relative.startsWith('..') ? file : relative;
}

/** The command line as the user typed it through npm, for meta.json. */
export function commandLine(argv: string[], script = 'metrics'): string {
  return [`npm run ${script} --`, ...argv.slice(3)].join(' ').replace(/ --$/, '');
}

/** `--export-json FILE`: the summaries in hyperfine's JSON shape. */
export function writeExport(exported: { file: string; metric: Metric } | undefined, summaries: CellSummary[]): void {
  if (!exported) return;
  const file = path.resolve(exported.file);
  try {
    writeHyperfineExport(file, summaries, exported.metric);
  } catch (error) {
    throw new UsageError(`--export-json: cannot write ${file}: ${(error as Error).message}`);
  }
}
