/**
 * `compare RUN_A RUN_B`: the comparison of two run folders as markdown on stdout (and --out FILE).
 * `--fail-above R` exits 1 when a cell got slower by more than R and significantly (for CI).
 */
import { writeFileWhole } from '../core/files.ts';
import { checkOutputFile } from './output-file.ts';
import path from 'node:path';
import type { Command } from 'commander';
import {
  compareSummaries,
  emptyGate,
  DEFAULT_COMPARE_METRIC,
  METRIC_NAMES,
  parseMetricName,
  type Comparison,
  type MetricName,
} from '../analyse/compare.ts';
import { UsageError } from '../core/errors.ts';
import { compareMarkdown } from '../report/compare-md.ts';
import { loadRun } from '../report/write.ts';
import { DEFAULT_INSTRUCTION_THRESHOLD } from '../analyse/instructions.ts';
import { parseList, parsePercentShare, parseRatio } from './parse.ts';

export interface CompareOptions {
  a: string;
  b: string;
  failAbove?: number;
  out?: string;
  /** the metrics to compare (default: wall firstResponse) */
  metrics?: MetricName[];
  /** instruction metrics: the share a count must move by to be a change */
  threshold?: number;
}

export interface CompareResult {
  comparison: Comparison;
  markdown: string;
  /** 1 when --fail-above tripped, else 0 */
  exitCode: number;
}

export function runCompare(options: CompareOptions): CompareResult {
  if (options.out) checkOutputFile('--out', options.out, [options.a, options.b]);
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
      throw new UsageError(`--out: ${(error as Error).message}`);
    }
  }
  return { comparison, markdown, exitCode: comparison.rows.some((r) => r.fails) ? 1 : 0 };
}

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare two run folders: ratio of medians B/A per cell with a Mann-Whitney U p-value; markdown on stdout')
    .argument('<runA>', 'the baseline run folder')
    .argument('<runB>', 'the run folder to compare with it')
    .option(
      '--fail-above <ratio>',
      'exit 1 when a cell is slower in B by more than this ratio (e.g. 1.10) and significantly ' +
        '(p < 0.05; an instruction count: beyond --threshold)',
      parseRatio,
    )
    .option(
      '--metric <list>',
      `comma list of metrics to compare: ${METRIC_NAMES.join(', ')} (cpu.* = the child's CPU time at that mark)`,
      (text: string) => [...new Set(parseList('--metric', text).map(parseMetricName))],
      [DEFAULT_COMPARE_METRIC],
    )
    .option(
      '--threshold <percent>',
      `instruction metrics: a count that moved by more than this is a change (default ${DEFAULT_INSTRUCTION_THRESHOLD * 100}%)`,
      parsePercentShare('--threshold'),
    )
    .option('--out <file>', 'also write the markdown to FILE')
    .action((runA: string, runB: string, opts: Record<string, unknown>) => {
      const result = runCompare({
        a: runA,
        b: runB,
        failAbove: opts.failAbove as number | undefined,
        out: opts.out as string | undefined,
        metrics: opts.metric as MetricName[],
        ...(opts.threshold !== undefined ? { threshold: opts.threshold as number } : {}),
      });
      process.stdout.write(result.markdown);
      if (result.exitCode) process.exitCode = result.exitCode;
    });
}
