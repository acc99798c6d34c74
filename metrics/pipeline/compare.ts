/**
 * `compare RUN_A RUN_B`, the use case: the comparison of two run folders as markdown (also written to
 * `out`); `failAbove` makes the exit code 1 when a cell got slower by more than that ratio, significantly.
 */
import path from 'node:path';
import { compareSummaries, emptyGate, DEFAULT_COMPARE_METRIC, type Comparison, type MetricName } from '../analyse/compare.ts';
import { EnvironmentError, UsageError } from '../core/errors.ts';
import { writeFileWhole } from '../store/files.ts';
import { checkExportFile, checkOutputFile } from '../store/output-file.ts';
import { compareMarkdown } from '../report/compare-md.ts';
import { loadRun } from '../report/write.ts';

export { DEFAULT_COMPARE_METRIC, METRIC_NAMES, parseMetricName, type MetricName } from '../analyse/compare.ts';
export { DEFAULT_INSTRUCTION_THRESHOLD } from '../analyse/instructions.ts';

export interface CompareOptions {
  a: string;
  b: string;
  failAbove?: number | undefined;
  out?: string | undefined;
  /** the metrics to compare (default: wall firstResponse) */
  metrics?: MetricName[];
  /** instruction metrics: the share a count must move by to be a change */
  threshold?: number | undefined;
}

export interface CompareResult {
  comparison: Comparison;
  markdown: string;
  /** 1 when --fail-above tripped, else 0 */
  exitCode: number;
}

export function runCompare(options: CompareOptions): CompareResult {
  if (options.out) {
    // writable before the runs are read, as every output file is: one line and exit 2, not exit 4 at the end
    checkExportFile('--out', options.out);
    checkOutputFile('--out', options.out, [options.a, options.b]);
  }
  const a = loadRun(path.resolve(options.a));
  const b = loadRun(path.resolve(options.b));
  const comparison = compareSummaries(
    [...a.summaries, ...a.counted],
    [...b.summaries, ...b.counted],
    options.metrics ?? [DEFAULT_COMPARE_METRIC],
    options.failAbove,
    options.threshold,
  );
  const empty = emptyGate(comparison);
  if (empty) throw new UsageError(empty);
  const markdown = compareMarkdown(comparison, { ...a, dir: options.a }, { ...b, dir: options.b });
  if (options.out) {
    try {
      writeFileWhole(options.out, markdown);
    } catch (error) {
      // the machine's refusal (a full disk, no permission) stays one: exit 4, not a usage error
      if (error instanceof EnvironmentError) throw new EnvironmentError(`--out: ${error.message}`);
      throw error;
    }
  }
  return { comparison, markdown, exitCode: comparison.rows.some((r) => r.fails) ? 1 : 0 };
}
