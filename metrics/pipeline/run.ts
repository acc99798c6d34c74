/**
 * A run (`run` on generated cells, `measure` on the user's apps): prepare the cells, open a
 * measurement session, write meta.json's start, run every planned sample through the sampler,
 * append each to samples.jsonl the moment it finishes, then complete meta.json and write the report
 * once. An interrupt keeps every finished sample and reports what there is; the result says how the
 * run went, and `exitCodeOf` what it exits with.
 */
import { toolCommand } from '../core/speak.ts';
import path from 'node:path';
import type { CellSummary } from '../analyse/aggregate.ts';
import { precisionSettings, type PrecisionSettings } from '../analyse/precision.ts';
import { writeAttribution } from '../store/attribution-file.ts';
import { EnvironmentError, EXIT_FAILED_SAMPLES, EXIT_INTERRUPTED, UsageError } from '../core/errors.ts';
import { loadCalibrationAt } from '../calibration/calibration-file.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';
import type { LoadSummary } from '../core/load.ts';
import type { Measure } from '../core/dimensions.ts';
import { measureKind, targetKind } from '../core/kinds.ts';
import type { RunMeta } from '../core/meta.ts';
import { writeMeta } from '../store/meta-file.ts';
import { firstHitsOf, hasCounted, targetsOf, type RunSpec } from '../core/run-spec.ts';
import { hasVariants } from '../analyse/answer.ts';
import { SAMPLES_FILE } from '../core/samples.ts';
import { appendSample } from '../store/samples-file.ts';
import { CompileCacheDirs } from '../measure/compile-cache.ts';
import { exitCodeOfSignal } from '../measure/children.ts';
import { NO_VALGRIND } from '../measure/counting.ts';
import { childEnvironment, type ChildEnvironment } from '../measure/environment.ts';
import { guardLimits } from '../measure/limits/registry.ts';
import type { RunContext, RunLimits } from '../measure/planned-run.ts';
import { PROFILE_METHOD } from '../measure/profile.ts';
import { Progress } from '../measure/progress.ts';
import { openSession, pointLatest, RESULTS_DIR, type MeasurementSession } from '../measure/session.ts';
import { checkOutputRoom } from '../plan/bounds.ts';
import type { PreparedCells } from '../plan/cells.ts';
import { buildPlan, type PlannedRun } from '../plan/order.ts';
import { writeReport, type WrittenReport } from '../report/write.ts';
import { lambdaHint } from '../report/html-answers.ts';
import { displayPath } from '../core/display.ts';
import { resolveJobs, shardCells } from './jobs.ts';
import { cpuSpeedCommands, endMeta, startMeta } from './meta.ts';
import type { CellSource, Deps } from './ports.ts';
import { checkPublication } from './publish.ts';
import { SampleRounds } from './rounds.ts';

export interface RunResult {
  dir: string;
  /** the timed cells' summaries, from the report's one reading of the run (none when nothing was recorded) */
  summaries: CellSummary[];
  interrupted: boolean;
  /** the interrupt's signal (INTERRUPT_SIGNALS), which the exit code says */
  signal?: NodeJS.Signals;
  /** samples recorded (timed and counted) and how many of them failed (unsupported cells are not failures) */
  recorded: number;
  failed: number;
  /** a run with no Lambda cell: the one line on how to get the Lambda answer (report.html says it too) */
  lambdaHint?: string;
}

/** A run once its session is open and its meta.json's start is written. */
interface OpenRun {
  session: MeasurementSession;
  prepared: PreparedCells;
  jobs: number;
  environment: ChildEnvironment;
  context: Omit<RunContext, 'caches' | 'files' | 'scratch'>;
  precision: PrecisionSettings;
  start: RunMeta;
}

/** What the samples added up to. */
interface Tally {
  samplesDurationMs: number;
  recorded: number;
  failed: number;
}

export async function runPipeline(spec: RunSpec, deps: Deps): Promise<RunResult> {
  const log = (line: string) => deps.progress.write(`${line}\n`);
  // a run into results/published/ starts only on a quiet machine (docs/dev/publishing.md)
  checkPublication(spec, () => deps.loadMonitor());
  const run = await openRun(spec, deps.source(spec), deps, log);
  try {
    const measured = await measureAll(spec, deps, run, log);
    const result = await finish(run, measured, deps, log);
    // a signal caught while the report was written, or after it, still says how the run ended (its exit code)
    const signal = run.session.signal;
    return signal ? { ...result, signal } : result;
  } finally {
    run.session.finish();
  }
}

/** The folder whose disk the run folder will be on: --out, else results/ (the session makes results/<timestamp> there). */
function runFolderDisk(output: RunSpec['output']): string {
  return output.out === undefined ? RESULTS_DIR : output.out;
}

/**
 * The run's limits: at the memory sizes asked, and for a target with fixed caps (lambda-web's 2 vCPUs and
 * 2 GB) always. Caps the machine cannot apply (no cgroups, not root) are said in one line and the run goes
 * on without them: the warning stays in the log, and meta.json's limits are absent for those samples.
 */
function runLimits(spec: RunSpec, deps: Deps, log: (line: string) => void): RunLimits | undefined {
  const limits = deps.limits(spec.cells.memories, spec.limits);
  if (limits) return limits;
  const capped = [
    ...new Set(
      targetsOf(spec).flatMap((t) => {
        const { caps } = targetKind(t);
        return caps ? [caps.memoryMB] : [];
      }),
    ),
  ];
  if (capped.length === 0) return undefined;
  try {
    return deps.limits(capped, spec.limits);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`warning: lambda-web's caps (2 vCPUs, 2 GB) are not applied: ${error.message.replace(/^--lambda-memory: /, '')}`);
    return undefined;
  }
}

/** The cells, the session (run folder made and locked), and meta.json's start written before anything is measured. */
async function openRun(spec: RunSpec, source: CellSource, deps: Deps, log: (line: string) => void): Promise<OpenRun> {
  const environment = childEnvironment(deps.env);
  // a missing or malformed --calibration is refused before the run folder is made (relative to where the user ran it)
  const file = spec.cost.calibrationFile;
  const calibration = file ? loadCalibrationAt(file.path, file.name).meta : undefined;
  const limits = runLimits(spec, deps, log);
  const counted = hasCounted(spec);
  const counting = counted ? deps.countTools() : undefined;
  if (counted && !counting) throw new UsageError(NO_VALGRIND);
  const { session, prepared } = await openSession(
    {
      out: spec.output.out,
      marker: SAMPLES_FILE,
      what: 'a run',
      command: 'run',
      startedAt: deps.now(),
      say: (line) => log(`coldstart: ${line}`),
    },
    async (opened) => {
      // the scratch folder holds what the cells need for this run only (measure --versions: the apps' copies)
      const all = await source.prepare(environment.env, log, opened.scratch);
      const cells = shardCells(all.cells, spec.sampling.shard);
      // the run folder's disk holds every sample the run may take (--samples auto: up to --max-samples) and the report
      const { samples, warmup, precision } = spec.sampling;
      checkOutputRoom(runFolderDisk(spec.output), cells.length * ((samples === 'auto' ? precision.maxSamples : samples) + warmup));
      return { prepared: { ...all, cells }, jobs: resolveJobs(spec.sampling.jobs, cells) };
    },
  );
  try {
    const precision = precisionSettings(spec.sampling.precision);
    const cpuSpeed: Record<string, LocalCpuSpeed> = {};
    for (const [runtime, command] of cpuSpeedCommands(prepared.prepared.cells)) {
      const speed = deps.cpuSpeed(command);
      if (speed) cpuSpeed[runtime] = speed;
    }
    await deps.step?.('planned');
    const { jobs } = prepared;
    // the answer table's package sizes: only when it has variants to compare
    const cells = prepared.prepared.cells;
    const shipped = hasVariants(cells.map((c) => c.cell)) ? await deps.shipped(cells) : undefined;
    const facts = {
      startedAt: session.startedAt,
      dropped: environment.dropped,
      limits,
      precision,
      jobs,
      cpuSpeed,
      ...(shipped ? { shipped } : {}),
      ...(calibration ? { calibration } : {}),
    };
    const start = startMeta(spec, prepared.prepared, facts);
    writeMeta(session.dir, start);
    await deps.step?.('started');
    const context = {
      env: environment.env,
      timeoutMs: spec.sampling.timeoutMs,
      firstHits: firstHitsOf(spec),
      limits,
      ...(counting ? { counting } : {}),
      ...(counting && spec.sampling.cacheSim ? { cacheSim: true } : {}),
      ...(counting && spec.sampling.countPackages ? { countPackages: true } : {}),
      ...(counting && spec.sampling.atomicGc ? { atomicGc: true } : {}),
    };
    return { session, prepared: prepared.prepared, jobs, environment, context, precision, start };
  } catch (error) {
    session.finish();
    throw error;
  }
}

/** Every planned sample, then `--samples auto`'s further rounds, then `--attribute`'s profiled runs. */
async function measureAll(spec: RunSpec, deps: Deps, run: OpenRun, log: (line: string) => void) {
  const { session, prepared, precision } = run;
  const { cells } = prepared;
  const { samples, warmup, order, seed, countSamples } = spec.sampling;
  const first = samples === 'auto' ? precision.minSamples : samples;
  const plan = buildPlan(cells, { samples: first, warmup, order, seed, countSamples });
  const caches = new CompileCacheDirs(session.scratch, () => session.interrupted);
  const files = deps.fileCache(cells, session.scratch);
  const context: RunContext = { ...run.context, scratch: session.scratch, caches, ...(files ? { files } : {}) };
  const progress = new Progress(plan, deps.progress);
  const rounds = new SampleRounds(cells, precision);
  const tally: Tally = { samplesDurationMs: 0, recorded: 0, failed: 0 };
  const samplesFile = path.join(session.dir, SAMPLES_FILE);
  const step = async (planned: PlannedRun) => {
    progress.starting(planned);
    await deps.step?.('sample');
    const sample = await deps.sampler.measure(planned, context);
    // a sample cut short by Ctrl-C says nothing about the framework: it is not recorded
    if (session.interrupted) return;
    appendSample(samplesFile, sample);
    await deps.step?.('between');
    tally.samplesDurationMs += sample.durationMs;
    if (sample.phase === 'sample') {
      tally.recorded++;
      if (!sample.ok && !sample.unsupported) tally.failed++;
      rounds.record(sample);
    }
    progress.finished(sample);
  };
  // the machine's load while the samples run: a busy machine inflates wall times, not CPU times
  const monitor = deps.loadMonitor();
  let load: LoadSummary | undefined;
  let compileCacheBytes: Record<string, number> | undefined;
  // Ctrl-C or an exit removes every live sample cgroup (the session's guard stops the loop)
  const limitsGuard = context.limits ? guardLimits() : undefined;
  try {
    await session.eachParallel(plan, run.jobs, step);
    // --samples auto: interleaved rounds over the cells whose median is not yet known to the precision
    for (let round = first + 1; samples === 'auto' && !session.interrupted; round++) {
      const next = rounds.next(round);
      if (!next) break;
      progress.extend(next.runs, next.note);
      await session.each(next.runs, step);
    }
    // --attribute: one more, unrecorded, profiled run per cell
    if (spec.output.attribute && !session.interrupted) {
      const attributed = await deps.attribute(cells, context, prepared.levers.runtimes, () => session.interrupted, log);
      writeAttribution(session.dir, { version: 1, method: PROFILE_METHOD, cells: attributed });
    }
  } finally {
    limitsGuard?.dispose();
    load = countedLoad(
      monitor.stop(),
      cells.map((c) => c.cell.measure),
    );
    progress.stop();
    compileCacheBytes = caches.bytes();
    caches.cleanup();
    session.close();
  }
  return { tally, load, files, compileCacheBytes };
}

/** meta.json completed, then the report of what there is, written once. */
async function finish(
  run: OpenRun,
  measured: Awaited<ReturnType<typeof measureAll>>,
  deps: Deps,
  log: (line: string) => void,
): Promise<RunResult> {
  const { session } = run;
  const { dir } = session;
  const { tally, load, files, compileCacheBytes } = measured;
  await deps.step?.('measured');
  const { interrupted } = session;
  // the CPU loop again, after the samples (not after Ctrl-C: the user is waiting for the report)
  const cpuSpeedAfter: Record<string, LocalCpuSpeed> = {};
  const before = cpuSpeedsOf(run.start.lambda);
  if (!interrupted)
    for (const [runtime, command] of cpuSpeedCommands(run.prepared.cells)) {
      const speed = before[runtime] ? deps.cpuSpeed(command) : undefined;
      if (speed) cpuSpeedAfter[runtime] = speed;
    }
  writeMeta(
    dir,
    endMeta(run.start, {
      finishedAt: deps.now(),
      samplesDurationMs: tally.samplesDurationMs,
      interrupted,
      load,
      files,
      compileCacheBytes,
      ...(Object.keys(cpuSpeedAfter).length ? { cpuSpeedAfter } : {}),
    }),
  );
  const signal = session.signal;
  const result = { dir, interrupted, ...(signal ? { signal } : {}), recorded: tally.recorded, failed: tally.failed };
  // a run interrupted before its first sample has nothing to report (its warm-ups stay in samples.jsonl)
  if (tally.recorded === 0) return { ...result, summaries: [] };
  if (load.warning) log(`warning: ${load.warning}`);
  // from here a further Ctrl-C (or npm's copy of the first) does not kill the report
  session.writingReport();
  if (interrupted) log(`writing the report of the finished samples in ${displayPath(dir)}`);
  await deps.step?.('report');
  let report: WrittenReport;
  try {
    report = await writeReport(dir, { warn: (line) => log(`warning: ${line}`) });
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    throw new EnvironmentError(
      `${error.message}; the samples are kept: \`${toolCommand('report', [displayPath(dir)])}\` writes the report`,
    );
  }
  pointLatest(dir);
  await deps.step?.('done');
  const hint = interrupted ? undefined : lambdaHint(report.context);
  return { ...result, summaries: report.context.summaries, ...(hint ? { lambdaHint: hint } : {}) };
}

/** The last line of a run: where its results are, and how many samples failed. */
export function runSummaryLine(result: RunResult): string {
  const where =
    result.recorded === 0
      ? `${result.interrupted ? 'interrupted ' : ''}before the first timed sample: no report ` +
        `(${displayPath(result.dir)} keeps meta.json and the warm-ups)`
      : `${result.interrupted ? 'interrupted; partial results in' : 'results in'} ${displayPath(result.dir)} (summary.md)`;
  return `${where}${result.failed ? `; ${result.failed} failed samples` : ''}`;
}

/**
 * A run's exit code: 128 + the signal caught at any step (130 for Ctrl-C; one that came while the report
 * was written too), 3 when samples failed (counted cells too) unless allowed, else 0.
 */
export function exitCodeOf(result: RunResult, allowFailures: boolean): number {
  if (result.signal) return exitCodeOfSignal(result.signal);
  if (result.interrupted) return EXIT_INTERRUPTED;
  return result.failed > 0 && !allowFailures ? EXIT_FAILED_SAMPLES : 0;
}

/**
 * A run whose every cell is counted: load does not move instruction counts, so its load warning says
 * that, not "wall times are inflated; compare CPU times" (which speaks of figures the run has none of).
 */
export function countedLoad(load: LoadSummary, measures: readonly Measure[]): LoadSummary {
  if (!load.warning || !measures.length || !measures.every((m) => measureKind(m).counted)) return load;
  return {
    ...load,
    warning: load.warning.replace(/: wall times are inflated; compare CPU times$/, ': instruction counts are not moved by it'),
  };
}
