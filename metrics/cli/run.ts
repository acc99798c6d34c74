/**
 * `run` (npm run metrics): its options, and the run (pipeline/run.ts) on generated cells. Ctrl-C
 * kills the live children, keeps every finished sample, writes the report of what there is and exits
 * 130; a run with failed samples exits 3 unless --allow-failures.
 */
import { Option, type Command } from 'commander';
import { writeExport } from '../pipeline/export.ts';
import { EXIT_FAILED_SAMPLES } from '../core/errors.ts';
import { ORDERS, type Order, type Target } from '../core/dimensions.ts';
import { realDeps, type Deps } from '../pipeline/ports.ts';
import { UsageError } from '../core/errors.ts';
import { exitCodeOf, runPipeline, runSummaryLine, type RunResult } from '../pipeline/run.ts';
import { DEFAULT_FIRST_HITS } from '../pipeline/run-options.ts';
import {
  runSpec,
  specRefusal,
  countedSamples,
  type Bootstrap,
  type Build,
  type CompileCache,
  type FileCache,
  type LambdaLine,
  type Measure,
  type RunSpec,
  type RuntimeName,
  type Source,
} from '../core/run-spec.ts';
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
  givenFlags,
  selectionOf,
} from './options.ts';
import { addCountOptions, countOptionsOf } from './count-options.ts';
import { parseChoice, parseInteger } from './parse.ts';
import { commandLine } from './shared.ts';

export type { RunOptions } from '../pipeline/run-options.ts';

/**
 * What `run` and `measure` do with the spec they parsed: the pipeline with the real deps (the CLI),
 * or anything a caller asks (a test keeps the spec: specOfArgv).
 */
export type Execute = (spec: RunSpec, deps: () => Deps) => Promise<void>;

export interface ProgramHooks {
  /** the command line being parsed (default process.argv), for meta.json */
  argv?: readonly string[];
  execute?: Execute;
}

/** Measure, write the export, print the last line and set the exit code. */
export async function executeRun(spec: RunSpec, deps: () => Deps): Promise<void> {
  const result = await runPipeline(spec, deps());
  writeExport(spec.output.exportJson, result.summaries);
  finishRun(result, spec.output.allowFailures);
}

/** A spec whose options cannot stand together is a UsageError: an option that has no effect, or nothing to run. */
export function checkedSpec(spec: RunSpec, command: Command): RunSpec {
  const given = givenFlags(command);
  const refusal = specRefusal(spec, given);
  if (refusal) throw new UsageError(refusal);
  return countedSamples(spec, given);
}

export function registerRunCommand(program: Command, hooks: ProgramHooks = {}): void {
  const command = program.command('run').description('generate, run every file as fresh processes, verify the answers, write the report');
  addSelectionOptions(command);
  addMeasureOptions(command, {
    samples: 'timed samples per cell, or auto (rounds until every median is known to --precision); with counted cells only, their count',
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
  addTargetOptions(command);
  addLeverOptions(command);
  addCostOptions(command);
  addAttributeOption(command);
  addCountOptions(command);
  command.option('-o, --out <dir>', 'run folder (default results/<timestamp>/; results/latest then names it)');
  addAllowFailuresOption(command);
  addExportOptions(command, 'in-spec');
  command.action(async (opts: Record<string, unknown>, self: Command) => {
    const selection = selectionOf(opts);
    const line = commandLine([...(hooks.argv ?? process.argv)]);
    const spec = checkedSpec(specOfOpts(opts, line, { kind: 'generated', ...selection }, opts.target as Target[]), self);
    await (hooks.execute ?? executeRun)(spec, realDeps);
  });
}

export function addAllowFailuresOption(command: Command): void {
  command.option('--allow-failures', `exit 0 even when samples failed (otherwise exit ${EXIT_FAILED_SAMPLES})`);
}

/**
 * What `run` and `measure` read from their shared options, as a RunSpec: sampling, order, limits,
 * cost, levers, counting, the run folder. TEMPORARY: the option groups (cli/groups/) replace it.
 */
export function specOfOpts(opts: Record<string, unknown>, command: string, source: Source, targets: Target[]): RunSpec {
  const levers = leverListsOf(opts);
  const cost = costOptionsOf(opts);
  const count = countOptionsOf(opts);
  return runSpec({
    command,
    source,
    cells: {
      targets,
      memories: (opts.lambdaMemory as number[] | undefined) ?? [],
      ...((count.measures as Measure[] | undefined) ? { measures: count.measures } : {}),
      runtimes: levers.runtimes as RuntimeName[],
      builds: levers.builds as Build[],
      compileCaches: levers.compileCaches as CompileCache[],
      ...(levers.lambdaRuntimes ? { lambdaRuntimes: levers.lambdaRuntimes as LambdaLine[] } : {}),
      ...(levers.bootstraps ? { bootstraps: levers.bootstraps as Bootstrap[] } : {}),
      ...(levers.fileCaches ? { fileCaches: levers.fileCaches as FileCache[] } : {}),
      lambdaReference: opts.lambdaReference !== 'off',
      node: opts.node as string,
    },
    sampling: {
      samples: opts.samples as number | 'auto',
      precision: precisionOf(opts),
      warmup: opts.warmup as number,
      timeoutMs: (opts.timeout as number) * 1000,
      order: opts.order as Order,
      seed: opts.seed as string,
      firstHits: (opts.firstHits as number | undefined) ?? 0,
      ...(count.countSamples ? { countSamples: count.countSamples } : {}),
      jobs: count.jobs ?? 'auto',
      shard: count.shard,
    },
    limits: limitOptionsOf(opts),
    cost: {
      ...(cost.memoryMB ? { memoryMB: cost.memoryMB } : {}),
      ...(cost.arch ? { architecture: cost.arch === 'x86' ? 'x86_64' : 'arm64' } : {}),
      pricePerGBs: cost.pricePerGBs,
    },
    output: {
      out: opts.out as string | undefined,
      attribute: opts.attribute === true,
      exportJson: exportOf(opts),
      allowFailures: opts.allowFailures === true,
    },
  });
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
