/**
 * `run` (npm run metrics): its options, and the run (pipeline/run.ts) on generated cells. Ctrl-C
 * kills the live children, keeps every finished sample, writes the report of what there is and exits
 * 130; a run with failed samples exits 3 unless --allow-failures.
 */
import { Option, type Command } from 'commander';
import type { Target } from '../../generators/types.ts';
import { EXIT_FAILED_SAMPLES } from '../core/errors.ts';
import { ORDERS, type Order } from '../plan/order.ts';
import { realDeps } from '../pipeline/ports.ts';
import { exitCodeOf, runPipeline, runSummaryLine, type RunResult } from '../pipeline/run.ts';
import { DEFAULT_FIRST_HITS, type RunOptions } from '../pipeline/run-options.ts';
import {
  addAttributeOption,
  addCostOptions,
  addExportOptions,
  addLeverOptions,
  addMeasureOptions,
  addPrecisionOptions,
  addSelectionOptions,
  addTargetOptions,
  costOptionsOf,
  exportOf,
  leverListsOf,
  limitOptionsOf,
  precisionOf,
  requireWith,
  selectionOf,
} from './options.ts';
import { addCountOptions, countOptionsOf } from './count-options.ts';
import { parseChoice, parseInteger } from './parse.ts';
import { commandLine, writeExport } from './shared.ts';

export type { RunOptions } from '../pipeline/run-options.ts';

export function registerRunCommand(program: Command): void {
  const command = program.command('run').description('generate, run every file as fresh processes, verify the answers, write the report');
  addSelectionOptions(command);
  addMeasureOptions(command, {
    samples: 'timed samples per cell, or auto (rounds until every median is known to --precision)',
    timeout: 'per-sample limit from spawn to a verified answer',
    auto: true,
  });
  addPrecisionOptions(command);
  command
    .addOption(
      new Option('--order <order>', 'interleaved (sample 1 of every cell, then 2 …), sequential or random')
        .default('interleaved')
        .argParser(parseChoice('--order', ORDERS)),
    )
    .option('--seed <text>', 'seed for --order random', 'coldstart')
    .option(
      '--first-hits <k>',
      'after the timed first answer, one request each to K further distinct routes spread over the table (0: none)',
      parseInteger('--first-hits', 0, 1000),
      DEFAULT_FIRST_HITS,
    );
  requireWith(command, ['seed'], (opts) => opts.order === 'random', '--order random');
  addTargetOptions(command);
  addLeverOptions(command);
  addCostOptions(command);
  addAttributeOption(command);
  addCountOptions(command);
  command.option('-o, --out <dir>', 'run folder (default results/<timestamp>/; results/latest then names it)');
  addAllowFailuresOption(command);
  addExportOptions(command);
  command.action(async (opts: Record<string, unknown>) => {
    const result = await runPipeline(
      {
        ...selectionOf(opts),
        ...sampleOptionsOf(opts),
        firstHits: opts.firstHits as number,
        command: commandLine(process.argv),
        targets: opts.target as Target[],
        lambdaReference: opts.lambdaReference !== 'off',
        ...countOptionsOf(opts),
      },
      realDeps(),
    );
    writeExport(exportOf(opts), result.summaries);
    finishRun(result, opts.allowFailures === true);
  });
}

export function addAllowFailuresOption(command: Command): void {
  command.option('--allow-failures', `exit 0 even when samples failed (otherwise exit ${EXIT_FAILED_SAMPLES})`);
}

/** What `run` and `measure` read from their shared options: sampling, order, limits, cost, levers, the run folder. */
export function sampleOptionsOf(opts: Record<string, unknown>) {
  return {
    samples: opts.samples as number | 'auto',
    precision: precisionOf(opts),
    warmup: opts.warmup as number,
    timeoutMs: (opts.timeout as number) * 1000,
    order: opts.order as Order,
    seed: opts.seed as string,
    node: opts.node as string,
    out: opts.out as string | undefined,
    cost: costOptionsOf(opts),
    levers: leverListsOf(opts),
    limits: limitOptionsOf(opts),
    attribute: opts.attribute === true,
    ...(opts.lambdaMemory ? { memories: opts.lambdaMemory as number[] } : {}),
  } satisfies Partial<RunOptions>;
}

/** The last line of a run, and its exit code: 130 interrupted, 3 when samples failed (unless allowed). */
export function finishRun(result: RunResult, allowFailures: boolean): void {
  process.stdout.write(`${runSummaryLine(result)}\n`);
  const code = exitCodeOf(result, allowFailures);
  if (code === EXIT_FAILED_SAMPLES) {
    process.stderr.write(
      `coldstart: ${result.failed} sample(s) failed (see summary.md): exit ${EXIT_FAILED_SAMPLES}; --allow-failures accepts them\n`,
    );
  }
  if (code !== 0) process.exitCode = code;
}
