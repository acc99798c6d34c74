/**
 * One planned run of a run's loop: a blocked cell's record, or a real sample with its compile-cache
 * directory and, at a memory size (or under its target's fixed caps), its own cgroup. `resolveLimits` checks the memory sizes and finds
 * the mechanism before anything is measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { SampleRecord } from '../core/samples.ts';
import { launchOf, type CellLaunch } from '../plan/launch.ts';
import type { PlannedRun } from '../plan/order.ts';
import type { CompileCacheDirs } from './compile-cache.ts';
import type { DiscoveryRun, SampleFileCache } from './file-cache.ts';
import { detectLimits, type Detection } from './limits/detect.ts';
import { capSettings, limitSettings, limitSettingsError, type LimitSettings } from './limits/settings.ts';
import type { LimitSpec } from '../core/run-spec.ts';
import type { LimitsMechanism } from './limits/types.ts';
import { COUNT_SLOWDOWN, countHooks, countShapeOf, type CountTools } from './counting.ts';
import { limitHooks } from './limited.ts';
import { blockedRecord, runSample, type SampleHooks } from './sample.ts';
import { targetOf } from './targets/index.ts';
import { isCounted } from '../core/dimensions.ts';
import { targetKind } from '../core/kinds.ts';

/** How a run limits its samples at memory sizes. */
export interface RunLimits {
  mechanism: LimitsMechanism;
  settings: (memoryMB: number) => LimitSettings;
  /** the settings of a target's fixed caps (lambda-web: 2 vCPUs, 2 GB) under the run's CPU period */
  caps: (caps: { memoryMB: number; cpus: number }) => LimitSettings;
  initCpus: number;
  cpuPeriodUs: number;
}

/**
 * With memory sizes to run at: the mechanism, or a one-line UsageError saying what is needed; every size
 * checked. `detect` finds the mechanism (the fake deps of --debug-mode pass one that touches no cgroup).
 */
export function resolveLimits(
  memories: readonly number[],
  options: LimitSpec,
  detect: () => Detection = detectLimits,
): RunLimits | undefined {
  if (!memories.length) return undefined;
  const { initCpus, cpuPeriodUs } = options;
  const settings = (memoryMB: number) => limitSettings(memoryMB, options);
  for (const memoryMB of memories) {
    const problem = limitSettingsError(settings(memoryMB));
    if (problem) throw new UsageError(`--lambda-memory/--cpu-period: ${problem}`);
  }
  const detected = detect();
  if (!detected.ok) throw new UsageError(`--lambda-memory: ${detected.reason}`);
  return { mechanism: detected.mechanism, settings, caps: (caps) => capSettings(caps, options), initCpus, cpuPeriodUs };
}

export interface RunContext {
  /** the folder the children run in */
  scratch: string;
  /** the children's clean environment */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** --first-hits: further routes each sample asks after its timed answer */
  firstHits: number;
  caches: CompileCacheDirs;
  limits: RunLimits | undefined;
  /** valgrind, when the run has counted cells */
  counting?: CountTools;
  /** counted cells also under the cache simulation (--cache-sim): estimated cycles beside the instructions */
  cacheSim?: boolean;
  /** counted cells also cut at each npm package's CommonJS loading (--count-packages) */
  countPackages?: boolean;
  /** counted children with V8's major GC atomic (--atomic-gc) */
  atomicGc?: boolean;
  /** the cells' file lists, when some cell runs from a cold file cache */
  files?: SampleFileCache;
  /** told the runner's clock at each sample's spawn (the profiled run places INIT's end on the profile's clock) */
  onSpawn?: (spawnAt: number) => void;
}

/** An unrecorded run of the cell that finds its files (under strace), with a compile cache of its own. */
function discoveryRun(run: PlannedRun, launch: CellLaunch, context: RunContext): DiscoveryRun {
  return async (wrap) => {
    const cacheDir = launch.compileCache === 'off' ? undefined : mkdtempSync(path.join(context.scratch, 'discovery-cache-'));
    try {
      return await runSample({
        target: targetOf(run.cell.target),
        firstHits: 0,
        cell: run.cell,
        launch: wrap(launchOf(launch, context.scratch, context.env, cacheDir)),
        file: launch.file,
        contract: run.planned.contract,
        ...(run.planned.app ? { app: run.planned.app } : {}),
        phase: 'warmup',
        index: 0,
        timeoutMs: context.timeoutMs,
        checkInvalidBody: false,
      });
    } finally {
      if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
    }
  };
}

export function measurePlannedRun(run: PlannedRun, context: RunContext): Promise<SampleRecord> {
  const { planned } = run;
  const launch = planned.launch;
  if (!launch) return Promise.resolve(blockedRecord(run, planned.blocked ?? { kind: 'failed', reason: 'no file to run' }));
  const { limits } = context;
  return context.caches.run(run.cell, async (cacheDir, recorded) => {
    // the file cache the run starts from: its own files evicted (cold) or read (warm)
    const app = planned.app
      ? { roots: [...new Set([planned.app.taskRoot ?? path.dirname(planned.app.file), planned.app.cwd])] }
      : undefined;
    const problem = await context.files?.prepare(run.cell, discoveryRun(run, launch, context), app);
    if (problem) return blockedRecord(run, { kind: 'failed', reason: problem });
    // at a memory size the child runs in its own cgroup: made here, removed by its hooks
    let hooks: SampleHooks = {};
    const counted = isCounted(run.cell);
    // a target with fixed caps (lambda-web) runs in a cgroup of its own whatever the memory sizes
    const caps = targetKind(run.cell.target).caps;
    if (counted) {
      if (!context.counting) return blockedRecord(run, { kind: 'failed', reason: 'valgrind is not available' });
      const shape = countShapeOf(run.cell);
      hooks = countHooks({
        tools: context.counting,
        scratch: context.scratch,
        shape,
        ...(context.cacheSim ? { cacheSim: true } : {}),
        ...(context.countPackages ? { packages: true } : {}),
        ...(context.atomicGc ? { atomicGc: true } : {}),
      });
    } else if (limits && (run.cell.memory > 0 || caps)) {
      try {
        hooks = limitHooks(limits.mechanism.create(caps ? limits.caps(caps) : limits.settings(run.cell.memory)));
      } catch (error) {
        return blockedRecord(run, { kind: 'failed', reason: `limits: ${(error as Error).message}` });
      }
    }
    return runSample(
      {
        target: targetOf(run.cell.target),
        cell: run.cell,
        launch: launchOf(launch, context.scratch, context.env, cacheDir),
        file: launch.file,
        contract: planned.contract,
        ...(planned.app ? { app: planned.app } : {}),
        phase: run.phase,
        index: run.index,
        timeoutMs: counted ? context.timeoutMs * COUNT_SLOWDOWN : context.timeoutMs,
        checkInvalidBody: recorded && run.checkInvalidBody,
        firstHits: context.firstHits,
        ...(counted ? { slowdown: COUNT_SLOWDOWN } : {}),
        ...(context.onSpawn ? { onSpawn: context.onSpawn } : {}),
      },
      hooks,
    );
  });
}
