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
import { estimatesAgainstReal, type EstimateAgainstReal } from '../analyse/estimate-vs-real.ts';
import { estimateVsRealMarkdown } from '../report/estimate-vs-real-md.ts';
import type { ReportContext } from '../report/contract.ts';
import { targetKind } from '../core/kinds.ts';
import { EXIT_OK, EXIT_VERDICT } from '../core/exit-codes.ts';
import { markdownCode } from '../core/escape.ts';

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
  /** --calibration: the calibration table of the estimates (default: the shipped one) */
  calibrationFile?: string | undefined;
}

export interface CompareResult {
  comparison: Comparison;
  markdown: string;
  /** 1 when --fail-above tripped, else 0 */
  exitCode: number;
  /** A's Lambda estimates against B's real Init (or B's against A's), when one run is local and the other real */
  estimates: EstimateAgainstReal[];
}

/** The real run's architecture: what its samples say, else its cost model's. */
function realArchitecture(real: ReportContext): string | undefined {
  return real.meta?.spec.cost.architecture;
}

/** The local run's estimates against the real run's Init, with the markdown; undefined when they share no cell. */
function estimateSection(local: ReportContext, real: ReportContext): { rows: EstimateAgainstReal[]; markdown: string } | undefined {
  if (!real.summaries.some((s) => !targetKind(s.cell.target).local)) return undefined;
  const architecture = realArchitecture(real);
  const chosen = local.calibrations.find((c) => c.architecture === architecture) ?? local.calibrations[0];
  if (!chosen) return undefined;
  const source = real.meta?.spec.source;
  const runtime = source?.kind === 'imported' ? source.lambdaRuntime : undefined;
  const rows = estimatesAgainstReal(local.summaries, chosen.calibration, real.summaries, runtime);
  if (rows.length === 0) return undefined;
  return { rows, markdown: estimateVsRealMarkdown(rows, chosen.architecture, local.reference?.source ?? 'none') };
}

/**
 * When both runs were counted and with different V8 flags (meta.json spec.countFlags: --atomic-gc, or a run made
 * before a flag changed), a note under the table: their counts differ by the flags too, not only by the change.
 */
function countFlagsNote(a: ReportContext, b: ReportContext): string {
  const [flagsA, flagsB] = [a.meta?.spec.countFlags, b.meta?.spec.countFlags];
  if (!flagsA || !flagsB || flagsA.join(' ') === flagsB.join(' ')) return '';
  const shown = (flags: readonly string[]) => markdownCode(flags.join(' '));
  return (
    `\n> **Counted with different V8 flags**: A with ${shown(flagsA)}, B with ${shown(flagsB)}. Their counts differ by the ` +
    'flags as well as by any change (`--atomic-gc` lowers a large cell by up to a few %: docs/guide/counting-instructions.md).\n'
  );
}

export function runCompare(options: CompareOptions): CompareResult {
  if (options.out) {
    // writable before the runs are read, as every output file is: one line and exit 2, not exit 4 at the end
    checkExportFile('--out', options.out);
    checkOutputFile('--out', options.out, [options.a, options.b]);
  }
  const settings = options.calibrationFile !== undefined ? { calibrationFile: options.calibrationFile } : {};
  const a = loadRun(path.resolve(options.a), settings);
  const b = loadRun(path.resolve(options.b), settings);
  const comparison = compareSummaries(
    [...a.summaries, ...a.counted],
    [...b.summaries, ...b.counted],
    options.metrics ?? [DEFAULT_COMPARE_METRIC],
    options.failAbove,
    options.threshold,
  );
  const estimates = estimateSection(a, b) ?? estimateSection(b, a);
  const empty = emptyGate(comparison);
  if (empty && !estimates) throw new UsageError(empty);
  const markdown =
    (empty ? '' : compareMarkdown(comparison, { ...a, dir: options.a }, { ...b, dir: options.b }) + countFlagsNote(a, b)) +
    (estimates ? `\n${estimates.markdown}` : '');
  if (options.out) {
    try {
      writeFileWhole(options.out, markdown);
    } catch (error) {
      // the machine's refusal (a full disk, no permission) stays one: exit 4, not a usage error
      if (error instanceof EnvironmentError) throw new EnvironmentError(`--out: ${error.message}`);
      throw error;
    }
  }
  return {
    comparison,
    markdown,
    exitCode: comparison.rows.some((r) => r.fails) ? EXIT_VERDICT : EXIT_OK,
    estimates: estimates?.rows ?? [],
  };
}
