/**
 * The seam between the use cases and the machine: everything a run does that spawns a process or
 * probes the machine goes through `Deps`, so a pipeline test with fakes (FakeSampler, FakeSource)
 * starts no child process. `realDeps()` wires today's real implementations; the CLI passes it, tests
 * and `--debug-mode` pass their own.
 */
import type { CellAttribution } from '../core/attribution.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';
import type { LoadSummary } from '../core/load.ts';
import { startLoadMonitor } from '../measure/load-monitor.ts';
import type { SampleRecord } from '../core/samples.ts';
import { findCountTools, type CountTools } from '../measure/counting.ts';
import { measureCpuSpeed } from '../measure/cpu-speed.ts';
import { benchmark, hyperfineVersion, type Benchmark, type BenchmarkLaunch, type BenchmarkOutcome } from '../measure/hyperfine.ts';
import { fileCacheOf } from '../measure/file-cache-run.ts';
import type { SampleFileCache } from '../measure/file-cache.ts';
import { measurePlannedRun, resolveLimits, type RunContext, type RunLimits } from '../measure/planned-run.ts';
import { attributeCells } from './attribute.ts';
import { shippedOfCells } from '../plan/shipped.ts';
import type { ShippedCode } from '../core/meta.ts';
import { prepareAppCells } from '../plan/apps.ts';
import { ensureVersion } from '../plan/versions.ts';
import { versionsCacheLock } from '../measure/run-lock.ts';
import { wrappedBuilder } from '../plan/snapshot.ts';
import { withContainment } from '../measure/contain.ts';
import { prepareCells, type PlannedCell, type PreparedCells } from '../plan/cells.ts';
import type { PlannedRun } from '../plan/order.ts';
import type { ResolvedRuntime } from '../plan/runtimes.ts';
import type { LimitSpec, RunSpec } from '../core/run-spec.ts';
import type { RunStep } from '../core/run-steps.ts';

/** Measures one planned run: the real one spawns the cell's process (measure/planned-run.ts); a fake makes the record up. */
export interface Sampler {
  measure(run: PlannedRun, context: RunContext): Promise<SampleRecord>;
}

/**
 * hyperfine, the `hyperfine` use case's clock in place of the sampler: its `--version` line (undefined
 * when it is not installed) and one benchmark of a cell; a fake makes the result up.
 */
export interface Bencher {
  version(env: NodeJS.ProcessEnv): string | undefined;
  benchmark(b: Benchmark, launch: BenchmarkLaunch): Promise<BenchmarkOutcome>;
}

/** Where a run's cells come from: generated files (plan/cells.ts) or the user's apps (plan/apps.ts). */
export interface CellSource {
  /** `scratch`: the run's scratch folder (removed at its end, and by the next run after a kill) */
  prepare(env: NodeJS.ProcessEnv, log: (line: string) => void, scratch?: string): Promise<PreparedCells>;
}

/** Where progress (the bar, or one line per cell) and the run's notes go; `isTTY` picks the bar. */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean };

/** `--attribute`: one unrecorded, profiled run per cell (measure/profile.ts). */
export type Attribute = (
  cells: readonly PlannedCell[],
  context: RunContext,
  runtimes: ReadonlyMap<string, ResolvedRuntime>,
  interrupted: () => boolean,
  log: (line: string) => void,
) => Promise<CellAttribution[]>;

export interface Deps {
  /** the environment coldstart runs in (the children get a clean copy of it) */
  env: NodeJS.ProcessEnv;
  sampler: Sampler;
  /** the `hyperfine` cross-check's clock */
  hyperfine: Bencher;
  /** the cells of a run, chosen from its spec (`source.kind` apps: the user's; generated: generated files) */
  source(spec: RunSpec): CellSource;
  /** the results a command prints (a run's last line, compare's table) */
  stdout(text: string): void;
  /** errors and warnings the command prints itself */
  stderr(text: string): void;
  /** progress and the run's notes (stderr in the CLI) */
  progress: ProgressStream;
  now(): Date;
  /** the machine's load while the samples run */
  loadMonitor(): { stop(): LoadSummary };
  /** valgrind and vgdb, for counted cells; undefined when absent */
  countTools(): CountTools | undefined;
  /** with memory sizes: the limits mechanism (cgroups), or a UsageError saying what is missing */
  limits(memories: readonly number[], options: LimitSpec): RunLimits | undefined;
  /** this machine's CPU time for the CPU reference's loop on a node binary (Lambda cells' CPU conversion) */
  cpuSpeed(command: string): LocalCpuSpeed | undefined;
  /** with cold file-cache cells: the cells' file lists (strace), or undefined when every cell is warm */
  fileCache(cells: readonly PlannedCell[], scratch: string): SampleFileCache | undefined;
  attribute: Attribute;
  /** what each cell would ship (plan/shipped.ts), when a lever of the answer table varies */
  shipped(cells: readonly PlannedCell[]): Promise<Record<string, ShippedCode>>;
  /** told each step of a run as it is reached (core/run-steps.ts): the fault-injection suite's hook; absent in real runs */
  step?: (step: RunStep) => void | Promise<void>;
}

/** The real sampler: every run a fresh process (measure/planned-run.ts). */
export const realSampler: Sampler = { measure: measurePlannedRun };

/** The real cells: the user's apps for `measure`, generated files for `run`. */
export function realSource({ source, cells }: Pick<RunSpec, 'source' | 'cells'>): CellSource {
  if (source.kind === 'apps')
    return {
      prepare: (env, log, scratch) =>
        prepareAppCells(source, cells, env, log, {
          snapshotBuilder: wrappedBuilder(withContainment),
          ...(scratch ? { scratch } : {}),
          // the versions cache held while a version is installed: another run installing into it waits
          installVersion: (value, appRoot, say) => ensureVersion(value, say, { app: appRoot, lock: versionsCacheLock('measure', say) }),
        }),
    };
  return { prepare: (env, log) => prepareCells(source, cells, env, log) };
}

/** The real hyperfine, one process per cell (measure/hyperfine.ts). */
export const realBencher: Bencher = { version: hyperfineVersion, benchmark };

export function realDeps(): Deps {
  return {
    env: process.env,
    sampler: realSampler,
    hyperfine: realBencher,
    source: realSource,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    progress: process.stderr,
    now: () => new Date(),
    loadMonitor: () => startLoadMonitor(),
    countTools: () => findCountTools(process.env.PATH),
    limits: (memories, options) => resolveLimits(memories, options),
    cpuSpeed: (command) => measureCpuSpeed(command),
    fileCache: (cells, scratch) => fileCacheOf(cells, scratch),
    attribute: attributeCells,
    shipped: shippedOfCells,
  };
}
