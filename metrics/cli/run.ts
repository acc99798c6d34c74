/**
 * `run` (npm run metrics): prepare the cells, open a measurement session, run every planned sample
 * as a fresh process, append each to samples.jsonl the moment it finishes, then write the report.
 * Ctrl-C kills the live children, keeps every finished sample, writes the report of what there is
 * and exits 130 (further signals do not kill that report); a run with failed samples exits 3 unless
 * --allow-failures.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { CellSummary } from '../analyse/aggregate.ts';
import { DEFAULT_MAX_SAMPLES, DEFAULT_MIN_SAMPLES, DEFAULT_PRECISION, precisionSettings } from '../analyse/precision.ts';
import { EnvironmentError, EXIT_FAILED_SAMPLES, EXIT_INTERRUPTED, UsageError } from '../core/errors.ts';
import { startLoadMonitor } from '../core/load.ts';
import { writeMeta } from '../core/meta.ts';
import { writeAttribution } from '../core/attribution-file.ts';
import { appendSample, SAMPLES_FILE } from '../core/samples.ts';
import { CompileCacheDirs } from '../measure/compile-cache.ts';
import { FILE_CACHE_META, fileCacheOf } from '../measure/file-cache-run.ts';
import { childEnvironment } from '../measure/environment.ts';
import { guardLimits } from '../measure/limits/registry.ts';
import { measurePlannedRun, resolveLimits } from '../measure/planned-run.ts';
import { PROFILE_METHOD } from '../measure/profile.ts';
import { attributeCells } from '../pipeline/attribute.ts';
import { Progress } from '../measure/progress.ts';
import { openSession, pointLatest } from '../measure/session.ts';
import { findCountTools, NO_VALGRIND } from '../measure/counting.ts';
import { prepareCells } from '../plan/cells.ts';
import { buildPlan, type PlannedRun } from '../plan/order.ts';
import { loadRun, writeReport } from '../report/write.ts';
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
import { resolveJobs, shardCells } from '../pipeline/jobs.ts';
import { parseChoice, parseInteger } from './parse.ts';
import { SampleRounds } from './rounds.ts';
import { runMeta } from './run-meta.ts';
import { DEFAULT_FIRST_HITS, type RunOptions } from '../pipeline/run-options.ts';
import { commandLine, displayPath, writeExport } from './shared.ts';
import { type Target, ORDERS, type Order } from '../core/dimensions.ts';

export type { RunOptions } from '../pipeline/run-options.ts';

export interface RunResult {
  dir: string;
  summaries: CellSummary[];
  interrupted: boolean;
  /** samples recorded (timed and counted) and how many of them failed (unsupported cells are not failures) */
  recorded: number;
  failed: number;
}

export async function runMetrics(options: RunOptions): Promise<RunResult> {
  const progressStream = options.progressStream ?? process.stderr;
  const log = (line: string) => progressStream.write(`${line}\n`);
  const environment = childEnvironment(process.env);
  const limits = resolveLimits(options.memories, options.limits);
  const counting = options.measures?.includes('instructions') ? findCountTools(process.env.PATH) : undefined;
  if (options.measures?.includes('instructions') && !counting) throw new UsageError(NO_VALGRIND);
  // `measure` brings its own cells (the user's apps); `run` generates them
  const prepare = options.prepare ?? ((env: NodeJS.ProcessEnv) => prepareCells(options, env, log));
  const { session, prepared } = await openSession(
    { out: options.out, marker: SAMPLES_FILE, what: 'a run', command: 'run', say: (line) => log(`coldstart: ${line}`) },
    async () => {
      const all = await prepare(environment.env, log);
      const cells = shardCells(all.cells, options.shard);
      return { ...all, cells, jobs: resolveJobs(options.jobs, cells) };
    },
  );
  try {
    const { cells, jobs } = prepared;
    const { dir, startedAt } = session;
    const auto =
      options.precision ??
      precisionSettings({ precision: DEFAULT_PRECISION, minSamples: DEFAULT_MIN_SAMPLES, maxSamples: DEFAULT_MAX_SAMPLES });
    const samplesFile = path.join(dir, SAMPLES_FILE);
    const meta = runMeta(options, prepared, { startedAt, dropped: environment.dropped, limits, precision: auto });
    if (jobs > 1) meta.options.jobs = jobs;
    writeMeta(dir, meta);

    const first = options.samples === 'auto' ? auto.minSamples : options.samples;
    const plan = buildPlan(cells, {
      samples: first,
      warmup: options.warmup,
      order: options.order,
      seed: options.seed,
      countSamples: options.countSamples ?? 1,
    });
    const caches = new CompileCacheDirs(session.scratch, () => session.interrupted);
    const files = fileCacheOf(cells, session.scratch);
    const progress = new Progress(plan, progressStream);
    const context = {
      scratch: session.scratch,
      env: environment.env,
      timeoutMs: options.timeoutMs,
      firstHits: options.firstHits ?? 0,
      caches,
      limits,
      counting,
      files,
    };
    const measure = (run: PlannedRun) => measurePlannedRun(run, context);
    let samplesDurationMs = 0;
    let recorded = 0;
    let failedSamples = 0;
    // what `--samples auto` decides on
    const rounds = new SampleRounds(cells, auto);
    const step = async (run: PlannedRun) => {
      progress.starting(run);
      const sample = await measure(run);
      // a sample cut short by Ctrl-C says nothing about the framework: it is not recorded
      if (session.interrupted) return;
      appendSample(samplesFile, sample);
      samplesDurationMs += sample.durationMs;
      if (sample.phase === 'sample') {
        recorded++;
        if (!sample.ok && !sample.unsupported) failedSamples++;
        rounds.record(sample);
      }
      progress.finished(sample);
    };
    // the machine's load while the samples run: a busy machine inflates wall times, not CPU times
    const load = startLoadMonitor();
    // Ctrl-C or an exit removes every live sample cgroup (the session's guard stops the loop)
    const limitsGuard = limits ? guardLimits() : undefined;
    try {
      await session.eachParallel(plan, jobs, step);
      // --samples auto: interleaved rounds over the cells whose median is not yet known to the precision
      for (let round = first + 1; options.samples === 'auto' && !session.interrupted; round++) {
        const next = rounds.next(round);
        if (!next) break;
        progress.extend(next.runs, next.note);
        await session.each(next.runs, step);
      }
      // --attribute: one more, unrecorded, profiled run per cell
      if (options.attribute && !session.interrupted) {
        const attributed = await attributeCells(cells, context, prepared.levers.runtimes, () => session.interrupted, log);
        writeAttribution(dir, { version: 1, method: PROFILE_METHOD, cells: attributed });
      }
    } finally {
      limitsGuard?.dispose();
      meta.load = load.stop();
      progress.stop();
      caches.cleanup();
      session.close();
    }

    const finishedAt = new Date();
    Object.assign(meta, {
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      samplesDurationMs,
      interrupted: session.interrupted,
      ...(files ? { fileCache: { ...FILE_CACHE_META, filesPerCell: files.counts() } } : {}),
    });
    writeMeta(dir, meta);
    // a run interrupted before its first sample has nothing to report (its warm-ups stay in samples.jsonl)
    if (recorded === 0) return { dir, summaries: [], interrupted: session.interrupted, recorded, failed: failedSamples };
    if (meta.load.warning) log(`warning: ${meta.load.warning}`);
    // from here a further Ctrl-C (or npm's copy of the first) does not kill the report
    session.writingReport();
    if (session.interrupted) log(`writing the report of the finished samples in ${displayPath(dir)}`);
    try {
      await writeReport(dir, { warn: (line) => log(`warning: ${line}`) });
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      throw new EnvironmentError(`${error.message}; the samples are kept: \`npm run report -- ${displayPath(dir)}\` writes the report`);
    }
    pointLatest(dir);
    return { dir, summaries: loadRun(dir).summaries, interrupted: session.interrupted, recorded, failed: failedSamples };
  } finally {
    session.finish();
  }
}

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
    const result = await runMetrics({
      ...selectionOf(opts),
      ...sampleOptionsOf(opts),
      firstHits: opts.firstHits as number,
      command: commandLine(process.argv),
      targets: opts.target as Target[],
      lambdaReference: opts.lambdaReference !== 'off',
      ...countOptionsOf(opts),
    });
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
  // counted cells are failures too, though they stay out of the timed summaries
  const failed = result.failed;
  const where =
    result.recorded === 0
      ? `${result.interrupted ? 'interrupted ' : ''}before the first timed sample: no report ` +
        `(${displayPath(result.dir)} keeps meta.json and the warm-ups)`
      : `${result.interrupted ? 'interrupted; partial results in' : 'results in'} ${displayPath(result.dir)} (summary.md)`;
  process.stdout.write(`${where}${failed ? `; ${failed} failed samples` : ''}\n`);
  if (result.interrupted) process.exitCode = EXIT_INTERRUPTED;
  else if (failed > 0 && !allowFailures) {
    process.stderr.write(
      `coldstart: ${failed} sample(s) failed (see summary.md): exit ${EXIT_FAILED_SAMPLES}; --allow-failures accepts them\n`,
    );
    process.exitCode = EXIT_FAILED_SAMPLES;
  }
}
