/**
 * `--attribute`: after the samples, one more run per cell under V8's CPU profiler (`node --cpu-prof`
 * into a folder of the scratch folder; CommonJS and ESM alike), never recorded as a sample. The
 * profile is written when the child exits (the runner's SIGTERM: generated files, coldstart's
 * preload and bootstrap exit normally on it, and a process AWS's client started is given a
 * `--require` that does), read, and removed with the scratch folder; the pipeline attributes it to
 * packages (analyse/attribution.ts). Under the client its own module counts as the package `aws-lambda-ric`.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeAppFiles } from '../../generators/app-probe.ts';
import { GENERATED_DIR } from '../../generators/write.ts';
import type { AttributionFile, CellAttribution } from '../core/attribution.ts';
import { isCpuProfile, type CpuProfile } from '../core/cpu-profile.ts';
import type { PlannedCell } from '../plan/cells.ts';
import type { PlannedRun } from '../plan/order.ts';
import type { ResolvedRuntime } from '../plan/runtimes.ts';
import { bundleBytes, bundleOrigins } from './bundle-bytes.ts';
import { measurePlannedRun, type RunContext } from './planned-run.ts';
import { oneLine } from './text.ts';
import { isCounted } from '../core/dimensions.ts';

/** The profiler's sampling interval: finer than V8's default 1 ms, so a 50 ms start still has a few hundred samples. */
export const PROFILE_INTERVAL_US = 250;

export const PROFILE_METHOD: AttributionFile['method'] = {
  profiler: `node --cpu-prof --cpu-prof-interval ${PROFILE_INTERVAL_US} (V8's sampling CPU profiler), one unrecorded run per cell`,
  intervalUs: PROFILE_INTERVAL_US,
};

/** The largest .cpuprofile in `dir` (the main thread's; workers write their own), or undefined. */
function mainProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}

/** How to read a profile: the files that are coldstart's own, the app's folder, a bundle's source map, the end of INIT. */
export interface ProfileContext {
  coldstartFiles: readonly string[];
  appRoot: string;
  /** a bundle's frames mapped back to the file they came from (its source map) */
  originalFile?: (url: string, line: number, column: number) => string | undefined;
  /** the end of INIT on the profile's clock (µs, CLOCK_MONOTONIC) */
  initEndUs?: number;
}

/** A cell's profiled run: what the attribution file says of it so far, and its profile when there is one to attribute. */
export interface ProfiledCell {
  base: CellAttribution;
  profile?: { profile: CpuProfile; context: ProfileContext };
}

/** The cell's launch with V8's profiler writing into `dir`. */
function profiledLaunch(planned: PlannedCell, dir: string, exitOnTerm: string[]): PlannedCell {
  const launch = planned.launch!;
  const profiler = ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', String(PROFILE_INTERVAL_US)];
  return { ...planned, launch: { ...launch, preArgs: [...profiler, ...exitOnTerm, ...(launch.preArgs ?? [])] } };
}

/** The profile the run left in `dir`, or the reason there is none. */
function readProfile(dir: string, sample: { ok: boolean; error?: string }): { profile: CpuProfile } | { reason: string } {
  const file = mainProfile(dir);
  if (!file) return { reason: sample.ok ? 'no profile was written' : `the profiled run failed: ${sample.error ?? 'unknown'}` };
  let profile: unknown;
  try {
    profile = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { reason: `the profile is not JSON: ${oneLine((error as Error).message, 120)}` };
  }
  return isCpuProfile(profile) ? { profile } : { reason: 'the profile is not a V8 CPU profile' };
}

/** One profiled run of a cell and its profile, or the reason there is none. */
export async function profileCell(planned: PlannedCell, context: RunContext, runtime: ResolvedRuntime | undefined): Promise<ProfiledCell> {
  const { cell, launch } = planned;
  if (!launch) return { base: { cell, ok: false, reason: planned.blocked?.reason ?? 'the cell does not run' } };
  if (runtime?.kind === 'bun') return { base: { cell, ok: false, reason: 'Bun has no --cpu-prof: no profile' } };
  const dir = mkdtempSync(path.join(context.scratch, 'profile-'));
  const files = writeAppFiles();
  // AWS's client has no SIGTERM handler: without one the runner's SIGTERM would end it before the profile is written
  const exitOnTerm = launch.start ? ['--require', files.termExit] : [];
  const run: PlannedRun = { cell, planned: profiledLaunch(planned, dir, exitOnTerm), phase: 'warmup', index: 0, checkInvalidBody: false };
  // the spawn on the monotonic clock V8's profiles count in (µs; libuv's hrtime reads the same clock)
  let spawnUs: number | undefined;
  const onSpawn = (spawnAt: number) => (spawnUs = Number(process.hrtime.bigint() / 1000n) - (performance.now() - spawnAt) * 1000);
  const sample = await measurePlannedRun(run, { ...context, onSpawn });
  // INIT ends where a server listens or a handler asks for its first event
  const initMark = sample.marks?.init ?? sample.marks?.listen;
  const initEndUs = spawnUs !== undefined && initMark !== undefined ? spawnUs + initMark * 1000 : undefined;
  const bytes = cell.build !== 'plain' ? bundleBytes(launch.file) : undefined;
  const base: CellAttribution = {
    cell,
    ok: sample.ok,
    ...(sample.marks ? { firstResponseMs: sample.marks.firstResponse } : {}),
    ...(bytes ? { bundleBytes: bytes } : {}),
  };
  const read = readProfile(dir, sample);
  if ('reason' in read) return { base: { ...base, reason: read.reason } };
  const failed = sample.ok ? {} : { reason: `the profiled run failed: ${sample.error ?? 'unknown'}` };
  const profileContext: ProfileContext = {
    // a handler's eager wrapper is coldstart's, as its bootstrap is; the handler's files are under its own folder
    coldstartFiles: [files.preload, files.lambdaBootstrap, files.termExit, ...(planned.app?.eagerOf ? [launch.file] : [])],
    appRoot: planned.app
      ? planned.app.eagerOf
        ? planned.app.cwd
        : (planned.app.taskRoot ?? path.dirname(planned.app.file))
      : GENERATED_DIR,
    ...(cell.build !== 'plain' ? { originalFile: bundleOrigins(launch.file) } : {}),
    ...(initEndUs !== undefined ? { initEndUs } : {}),
  };
  return { base: { ...base, ...failed }, profile: { profile: read.profile, context: profileContext } };
}

/** Every cell that runs, profiled once, in order, each handed to `attribute` at once; stops early when the run is interrupted. */
export async function profileCells(
  cells: readonly PlannedCell[],
  context: RunContext,
  runtimes: ReadonlyMap<string, ResolvedRuntime>,
  interrupted: () => boolean,
  log: (line: string) => void,
  attribute: (profiled: ProfiledCell) => CellAttribution,
): Promise<CellAttribution[]> {
  const result: CellAttribution[] = [];
  // counted cells run under valgrind: their profile would say nothing about the cold start
  const runnable = cells.filter((c) => c.launch && !isCounted(c.cell));
  if (runnable.length) log(`attribution: one profiled run for each of ${runnable.length} cells…`);
  for (const planned of runnable) {
    if (interrupted()) break;
    result.push(attribute(await profileCell(planned, context, runtimes.get(planned.cell.runtime))));
  }
  return result;
}
