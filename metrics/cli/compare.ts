/** `compare RUN_A RUN_B`: its options; the comparison itself is pipeline/compare.ts. */
import type { Command as PlainCommand } from 'commander';
import { Command } from '@commander-js/extra-typings';
import {
  DEFAULT_COMPARE_METRIC,
  DEFAULT_INSTRUCTION_THRESHOLD,
  METRIC_NAMES,
  parseMetricName,
  runCompare,
  type MetricName,
} from '../pipeline/compare.ts';
import { parseList, parsePercentShare, parseRatio } from '../core/parse.ts';
import { addTypedCommand } from './groups/common.ts';
import { terminalText } from './shared.ts';

const DEFAULT_METRICS: MetricName[] = [DEFAULT_COMPARE_METRIC];

export function registerCompareCommand(program: PlainCommand): void {
  const compare = new Command('compare')
    .description('compare two run folders: ratio of medians B/A per cell with a Mann-Whitney U p-value; markdown on stdout')
    .argument('<runA>', 'the baseline run folder (samples.jsonl read line by line, a line at most 4 MB; meta.json at most 16 MB)')
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
      (text: string): MetricName[] => [...new Set(parseList('--metric', text).map(parseMetricName))],
      DEFAULT_METRICS,
    )
    .option(
      '--threshold <percent>',
      `instruction metrics: a count that moved by more than this is a change (default ${DEFAULT_INSTRUCTION_THRESHOLD * 100}%)`,
      parsePercentShare('--threshold'),
    )
    .option('--out <file>', 'also write the markdown to FILE')
    .option('--calibration <file>', "the calibration table of the Lambda estimates (lambda:calibrate's; default: the shipped one)")
    .action((a, b, opts) => {
      const result = runCompare({
        a,
        b,
        metrics: opts.metric,
        failAbove: opts.failAbove,
        out: opts.out,
        threshold: opts.threshold,
        calibrationFile: opts.calibration,
      });
      process.stdout.write(terminalText(result.markdown));
      if (result.exitCode) process.exitCode = result.exitCode;
    });
  addTypedCommand(program, compare);
}
