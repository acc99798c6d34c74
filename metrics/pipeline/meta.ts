/**
 * meta.json of a run: what was asked, on what machine, with which versions, limits and environment.
 * Built once: `startMeta` is written before the first sample (a killed run still explains its
 * samples), `endMeta` is that same object with the end's facts added, written when the run ends.
 * Both are pure over facts already measured (the CPU speed loop runs before, through the Deps).
 */
import path from 'node:path';
import { frameworkVersion, installedCommit, installedVersion } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import { cellLabel } from '../core/cell.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';
import type { LoadSummary } from '../core/load.ts';
import {
  META_VERSION,
  type CalibrationMeta,
  type LambdaMeta,
  type RunMeta,
  type ShippedCode,
  type TimeEstimateMeta,
  type VersionMeta,
} from '../core/meta.ts';
import { CYCLES_AS_TIME, INSTRUCTIONS_AS_TIME } from '../analyse/proxy-fit.ts';
import { machine, runnerInfo, toolVersion } from '../store/meta-file.ts';
import { metaCellsOfTable, type MetaCells, type MetaLimits, type MetaSampling, type MetaSource, type MetaSpec } from '../core/meta-spec.ts';
import { PROJECT_ROOT } from '../core/paths.ts';
import { pathRecorder, recordedPaths } from '../core/recorded-paths.ts';
import { countV8Flags } from '../measure/counting.ts';
import { CHILD_NODE_ENV, PASSED_ENV } from '../measure/environment.ts';
import { FILE_CACHE_META } from '../measure/file-cache-run.ts';
import type { SampleFileCache } from '../measure/file-cache.ts';
import { MB_PER_VCPU } from '../core/lambda-platform.ts';
import { storedValue } from '../core/dimensions.ts';
import type { RunLimits } from '../measure/planned-run.ts';
import { LAMBDA_ENVIRONMENT_NAMES } from '../measure/runtime-api/environment.ts';
import type { PlannedCell, PreparedCells } from '../plan/cells.ts';
import { COMPILE_CACHE_ENV } from '../plan/launch.ts';
import { runtimeSources, runtimeVersions } from '../plan/levers.ts';
import { RUNTIMES_DIR } from '../plan/runtimes.ts';
import type { InstalledVersion } from '../plan/versions.ts';
import { isCounted } from '../core/dimensions.ts';
import { firstHitsOf, hasCounted, targetsOf, type RunSpec } from '../core/run-spec.ts';
import { isLocalHandler, targetKind } from '../core/kinds.ts';

/** What a run knows when it starts, besides what it was asked: measured or resolved before the first sample. */
export interface StartFacts {
  startedAt: Date;
  /** the parent's variables the children do not get */
  dropped: string[];
  limits: RunLimits | undefined;
  precision: PrecisionSettings;
  /** runs in flight at once */
  jobs: number;
  /** by runtime: this machine's speed on the CPU reference's loop (local Lambda cells only) */
  cpuSpeed: Record<string, LocalCpuSpeed>;
  /** cellKey → what its build ships, when a lever of the answer table varies */
  shipped?: Record<string, ShippedCode>;
  /** --calibration: the calibration file the estimates use */
  calibration?: CalibrationMeta;
}

/** What a run knows when it ends. */
export interface EndFacts {
  finishedAt: Date;
  samplesDurationMs: number;
  interrupted: boolean;
  load: LoadSummary;
  files: SampleFileCache | undefined;
  /** cellKey → the bytes of its warm compile cache after the fill */
  compileCacheBytes?: Record<string, number>;
  /** by runtime: the CPU reference's loop timed again after the samples (appended to the start's timings) */
  cpuSpeedAfter?: Record<string, LocalCpuSpeed>;
}

/**
 * The loop's timings before the samples and after them, one list per runtime: the host's speed can move
 * by 2 × within an hour here, so one timing at the start can convert a whole run at the wrong speed.
 */
export function cpuSpeedBothEnds(
  before: Record<string, LocalCpuSpeed> | undefined,
  after: Record<string, LocalCpuSpeed> | undefined,
): Record<string, LocalCpuSpeed> | undefined {
  if (!before || !after) return before;
  const joined: Record<string, LocalCpuSpeed> = { ...before };
  for (const [runtime, speed] of Object.entries(after)) {
    const first = before[runtime];
    if (first && first.iterations === speed.iterations) joined[runtime] = { ...first, cpuMs: [...first.cpuMs, ...speed.cpuMs] };
  }
  return joined;
}

/** The Lambda cells whose CPU time converts to Lambda's speed: the runtimes (by launch command) to time the CPU loop on. */
export function cpuSpeedCommands(cells: readonly PlannedCell[]): Map<string, string> {
  const commands = new Map<string, string>();
  for (const { cell, launch } of cells) {
    // a Web Function's INIT converts to Lambda's arm64 speed as a handler's CPU time does (report/web-functions.ts)
    const converted = isLocalHandler(cell.target) || targetKind(cell.target).caps !== undefined;
    if (!converted || !launch || isCounted(cell) || commands.has(cell.runtime)) continue;
    commands.set(cell.runtime, launch.command);
  }
  return commands;
}

/**
 * The cells' lists, in the order given (the lever tables' column order); the Lambda lines and starts
 * only when some cell is a Lambda cell, the file caches only when some cell's is not warm.
 */
function cellsMeta(spec: RunSpec, { cells }: PreparedCells): MetaCells {
  const lambda = cells.filter((c) => isLocalHandler(c.cell.target));
  const values = <T>(pick: (c: PlannedCell) => T, from: readonly PlannedCell[]) => [...new Set(from.map(pick))];
  const fileCaches = values((c) => c.cell.fileCache, cells);
  const inits = values((c) => c.cell.init, lambda);
  const written: MetaCells = {
    targets: targetsOf(spec),
    memories: [...spec.cells.memories],
    measures: [...spec.cells.measures],
    runtimes: spec.cells.runtimes,
    builds: spec.cells.builds,
    compileCaches: spec.cells.compileCaches,
    ...(lambda.length
      ? { lambdaRuntimes: values((c) => c.cell.runtime, lambda), bootstraps: values((c) => c.cell.bootstrap, lambda) }
      : {}),
    ...(inits.some((i) => i !== storedValue('init')) ? { inits: spec.cells.inits } : {}),
    ...(fileCaches.some((f) => f !== 'warm') ? { fileCaches } : {}),
    ...(spec.cells.versions.length ? { versions: [...spec.cells.versions] } : {}),
  };
  // and any newer row's list, from the table (core/meta-spec.ts)
  return metaCellsOfTable(
    written,
    spec.cells,
    cells.map((c) => c.cell),
  );
}

export function frameworksMeta(generators: FrameworkGenerator[]): RunMeta['frameworks'] {
  return Object.fromEntries(
    generators.map((g) => [
      g.name,
      {
        version: frameworkVersion(g),
        packages: Object.fromEntries(g.packages.map((pkg) => [pkg, installedVersion(pkg) ?? 'not installed'])),
        validation: g.validation,
        alwaysValidates: Boolean(g.alwaysValidates),
        ...commitsOf(g.packages),
      },
    ]),
  );
}

/** `--versions` as installed: each package at a version with where npm took it from and its integrity. */
function versionsMeta(installed: ReadonlyMap<string, InstalledVersion>): Record<string, VersionMeta> {
  return Object.fromEntries([...installed].map(([value, v]) => [value, { resolved: v.resolved, integrity: v.integrity }]));
}

/** The commits the packages were built from (their package.json's gitHead), when any records one: mion, built from source, does. */
function commitsOf(packages: readonly string[]): { commits?: Record<string, string> } {
  const commits = Object.fromEntries(
    packages.flatMap((pkg) => {
      const commit = installedCommit(pkg);
      return commit ? [[pkg, commit]] : [];
    }),
  );
  return Object.keys(commits).length ? { commits } : {};
}

/** What meta.json says of a run's Lambda cells: the runtime lines, how each start was launched (flags, variables), the event format. */
export function lambdaMeta(
  { cells, ric }: Pick<PreparedCells, 'cells' | 'ric'>,
  cpuSpeed: Record<string, LocalCpuSpeed>,
): LambdaMeta | undefined {
  const lambda = cells.filter((c) => isLocalHandler(c.cell.target));
  // Web Functions only: the CPU loop's timings, which their estimate converts with
  if (!lambda.length) return Object.keys(cpuSpeed).length ? { starts: {}, variables: [], cpuSpeed } : undefined;
  const starts: LambdaMeta['starts'] = {};
  for (const { cell, launch, contract, app } of lambda) {
    const start = launch?.start;
    starts[cellLabel(cell)] = {
      bootstrap: cell.bootstrap,
      runtime: cell.runtime,
      // the user's handler gets the user's event, whatever its shape
      eventFormat: app ? 'the --event file' : contract.eventFormat,
      ...(start ? { flags: start.flags, env: start.env } : {}),
    };
  }
  return {
    starts,
    ...(ric ? { client: ric.source } : {}),
    variables: [...LAMBDA_ENVIRONMENT_NAMES],
    ...(Object.keys(cpuSpeed).length ? { cpuSpeed } : {}),
  };
}

/** What was asked of the cells: the generated selection, or the user's apps (their variables by name only: values may be secrets). */
function sourceMeta({ source }: RunSpec, prepared: PreparedCells): MetaSource {
  if (source.kind === 'apps')
    return { kind: 'apps', apps: source.apps.map(({ env, ...app }) => ({ ...app, ...(env ? { env: Object.keys(env) } : {}) })) };
  return {
    kind: 'generated',
    frameworks: prepared.selected.map((g) => g.name),
    routes: source.routes,
    variants: source.variants,
    shapes: [...source.shapes],
    schemas: [...source.schemas],
  };
}

/** How the samples are taken: counts, precision, order, first hits; counted cells' own count; jobs and shard. */
function samplingMeta(spec: RunSpec, { precision, jobs }: StartFacts): MetaSampling {
  const { samples, warmup, timeoutMs, order, seed, countSamples, cacheSim, countPackages, shard } = spec.sampling;
  return {
    samples,
    ...(samples === 'auto'
      ? {
          precision: {
            precision: precision.precision,
            minSamples: precision.minSamples,
            maxSamples: precision.maxSamples,
            metric: 'firstResponse',
          },
        }
      : {}),
    warmup,
    timeoutMs,
    order,
    seed,
    firstHits: firstHitsOf(spec),
    ...(hasCounted(spec) ? { countSamples } : {}),
    ...(hasCounted(spec) && cacheSim ? { cacheSim: true } : {}),
    ...(hasCounted(spec) && countPackages ? { countPackages: true } : {}),
    ...(jobs > 1 ? { jobs } : {}),
    ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
  };
}

/** The memory sizes' limits, when the run has them. */
function limitsMeta(limits: RunLimits | undefined): MetaLimits | undefined {
  if (!limits) return undefined;
  const { mechanism, initCpus, cpuPeriodUs } = limits;
  const join = 'a shell joins the cgroup, then execs the runtime (same pid)';
  return { ...mechanism.info, initCpus, cpuPeriodUs, mbPerVcpu: MB_PER_VCPU, join };
}

/** meta.json's `spec`: what was asked, with the facts resolved from it (frameworks, limits, runtimes, jobs). */
export function specMeta(spec: RunSpec, prepared: PreparedCells, facts: StartFacts): MetaSpec {
  const limits = limitsMeta(facts.limits);
  const { cost } = spec;
  const [architecture] = cost.architectures;
  return {
    source: sourceMeta(spec, prepared),
    cells: cellsMeta(spec, prepared),
    sampling: samplingMeta(spec, facts),
    ...(limits ? { limits } : {}),
    cost: {
      memoryMB: cost.memoryMB,
      ...(architecture ? { architecture } : {}),
      ...(cost.architectures.length > 1 ? { architectures: cost.architectures } : {}),
      ...(cost.pricePerGBs !== undefined ? { pricePerGBs: cost.pricePerGBs } : {}),
      ...(cost.budgetMs !== undefined ? { budgetMs: cost.budgetMs } : {}),
      ...(cost.webRates ? { webRates: cost.webRates } : {}),
    },
    ...(spec.output.attribute ? { attribute: true as const } : {}),
    ...(hasCounted(spec) ? { countFlags: countV8Flags(spec.sampling.atomicGc) } : {}),
    runtimeSources: runtimeSources(prepared.levers),
  };
}

/**
 * The meta.json a run starts with, written before its first sample. It names no folder of this machine:
 * paths under the project, a moved .runtimes/ and the apps' folder are recorded from their placeholders
 * (`<project>/…`, core/recorded-paths.ts); the launches keep the real paths.
 */
export function startMeta(spec: RunSpec, prepared: PreparedCells, facts: StartFacts): RunMeta {
  const cwd = spec.source.kind === 'apps' ? spec.source.cwd : undefined;
  // .runtimes/ in the project is `<project>/.runtimes`; `<runtimes>` only where COLDSTART_RUNTIMES_DIR moves it
  const fromProject = path.relative(PROJECT_ROOT, RUNTIMES_DIR);
  const moved = fromProject.startsWith('..') || path.isAbsolute(fromProject);
  const roots = {
    project: PROJECT_ROOT,
    ...(moved ? { runtimes: RUNTIMES_DIR } : {}),
    ...(cwd ? { cwd } : {}),
    ...(prepared.ric ? { ric: prepared.ric.dir } : {}),
  };
  return recordedPaths(startFacts(spec, prepared, facts), pathRecorder(roots));
}

/**
 * The published fit a counted run's estimated ms use, recorded so its report says the same later: estimated cycles
 * under --cache-sim (the closer fit, which the finding says to quote), else instructions.
 */
function timeEstimateOf(spec: RunSpec): TimeEstimateMeta {
  return structuredClone(spec.sampling.cacheSim ? CYCLES_AS_TIME : INSTRUCTIONS_AS_TIME);
}

function startFacts(spec: RunSpec, prepared: PreparedCells, facts: StartFacts): RunMeta {
  const compileCached = prepared.cells.some((c) => c.cell.compileCache !== 'off');
  const lambda = lambdaMeta(prepared, facts.cpuSpeed);
  return {
    version: META_VERSION,
    tool: 'coldstart',
    toolVersion: toolVersion(),
    startedAt: facts.startedAt.toISOString(),
    command: spec.command,
    spec: specMeta(spec, prepared, facts),
    machine: machine(),
    runner: runnerInfo(),
    runtimes: runtimeVersions(prepared.levers),
    frameworks: frameworksMeta(prepared.selected),
    skipped: Object.fromEntries(prepared.skipped),
    ...(prepared.versions ? { versions: versionsMeta(prepared.versions) } : {}),
    ...(lambda ? { lambda } : {}),
    ...(facts.shipped ? { shipped: { code: facts.shipped } } : {}),
    ...(facts.calibration ? { calibration: facts.calibration } : {}),
    ...(hasCounted(spec) ? { timeEstimate: timeEstimateOf(spec) } : {}),
    environment: {
      passed: [
        ...PASSED_ENV,
        `NODE_ENV=${CHILD_NODE_ENV}`,
        ...(compileCached ? [`${COMPILE_CACHE_ENV} (compile-cache cold/warm cells only)`] : []),
      ],
      dropped: facts.dropped,
    },
  };
}

/** The meta.json a run ends with: its start, unchanged, and what the end knows. */
export function endMeta(start: RunMeta, end: EndFacts): RunMeta {
  const startSpeeds = cpuSpeedsOf(start.lambda);
  return {
    ...start,
    load: end.load,
    finishedAt: end.finishedAt.toISOString(),
    durationMs: end.finishedAt.getTime() - Date.parse(start.startedAt),
    samplesDurationMs: end.samplesDurationMs,
    interrupted: end.interrupted,
    ...(end.files ? { fileCache: { ...FILE_CACHE_META, filesPerCell: end.files.counts() } } : {}),
    ...(end.cpuSpeedAfter && Object.keys(startSpeeds).length
      ? { lambda: { ...(start.lambda as object), cpuSpeed: cpuSpeedBothEnds(startSpeeds, end.cpuSpeedAfter) } }
      : {}),
    ...(start.shipped && end.compileCacheBytes && Object.keys(end.compileCacheBytes).length
      ? { shipped: { ...start.shipped, compileCache: end.compileCacheBytes } }
      : {}),
  };
}
