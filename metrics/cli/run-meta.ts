/** meta.json of a run: what was asked, on what machine, with which versions, limits and environment. */
import { frameworkVersion, installedVersion } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { costMetaOptions } from '../analyse/cost.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import { machine, toolVersion, type RunMeta } from '../core/meta.ts';
import { CHILD_NODE_ENV, PASSED_ENV } from '../measure/environment.ts';
import { COUNT_V8_FLAGS } from '../measure/counting.ts';
import type { RunLimits } from '../measure/planned-run.ts';
import type { PreparedCells } from '../plan/cells.ts';
import { COMPILE_CACHE_ENV } from '../plan/launch.ts';
import { runtimeSources, runtimeVersions } from '../plan/levers.ts';
import type { PlannedCell } from '../plan/cells.ts';
import { lambdaMeta } from './lambda-meta.ts';
import type { RunOptions } from '../pipeline/run-options.ts';
import { MB_PER_VCPU } from '../core/lambda-platform.ts';

/**
 * The Lambda lines, starts and file caches the cells use, in the order given (the lever tables'
 * column order); only when some cell has them.
 */
function leverOrder(cells: readonly PlannedCell[]): Record<string, string[]> {
  const lambda = cells.filter((c) => c.cell.target === 'lambda');
  const values = (pick: (c: PlannedCell) => string, from: readonly PlannedCell[]) => [...new Set(from.map(pick))];
  const fileCaches = values((c) => c.cell.fileCache, cells);
  return {
    ...(lambda.length
      ? { lambdaRuntimes: values((c) => c.cell.runtime, lambda), bootstraps: values((c) => c.cell.bootstrap, lambda) }
      : {}),
    ...(fileCaches.some((f) => f !== 'warm') ? { fileCaches } : {}),
  };
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
      },
    ]),
  );
}

/** The meta.json a run starts with (run.ts adds the end time, the durations and the load when it ends). */
export function runMeta(
  options: RunOptions,
  prepared: PreparedCells,
  {
    startedAt,
    dropped,
    limits,
    precision,
  }: { startedAt: Date; dropped: string[]; limits: RunLimits | undefined; precision: PrecisionSettings },
): RunMeta {
  const { selected, skipped, cells, levers } = prepared;
  const compileCached = cells.some((c) => c.cell.compileCache !== 'off');
  const lambda = lambdaMeta(prepared);
  return {
    tool: 'coldstart',
    toolVersion: toolVersion(),
    startedAt: startedAt.toISOString(),
    command: options.command,
    options: {
      frameworks: selected.map((g) => g.name),
      routes: options.routes,
      variants: options.variants,
      ...(options.shapes ? { shapes: options.shapes } : {}),
      ...(options.schemas ? { schemas: options.schemas } : {}),
      ...(options.firstHits ? { firstHits: options.firstHits } : {}),
      samples: options.samples,
      ...(options.samples === 'auto'
        ? {
            precision: precision.precision,
            minSamples: precision.minSamples,
            maxSamples: precision.maxSamples,
            precisionMetric: 'firstResponse',
          }
        : {}),
      warmup: options.warmup,
      timeoutMs: options.timeoutMs,
      order: options.order,
      seed: options.seed,
      ...costMetaOptions(options.cost),
      targets: options.targets ?? ['server'],
      // the apps' variables by name only: their values may be secrets
      ...(options.apps ? { apps: options.apps.map(({ env, ...app }) => ({ ...app, ...(env ? { env: Object.keys(env) } : {}) })) } : {}),
      ...(options.attribute ? { attribute: true } : {}),
      ...(options.memories ? { lambdaMemory: options.memories } : {}),
      ...(limits
        ? {
            limits: {
              ...limits.mechanism.info,
              initCpus: limits.initCpus,
              cpuPeriodUs: limits.cpuPeriodUs,
              mbPerVcpu: MB_PER_VCPU,
              join: 'a shell joins the cgroup, then execs the runtime (same pid)',
            },
          }
        : {}),
      ...(options.measures && options.measures.join() !== 'time'
        ? { measures: options.measures, countSamples: options.countSamples ?? 1, countFlags: [...COUNT_V8_FLAGS] }
        : {}),
      ...(options.shard ? { shard: `${options.shard.index}/${options.shard.count}` } : {}),
      runtimes: levers.lists.runtimes,
      builds: levers.lists.builds,
      compileCaches: levers.lists.compileCaches,
      ...leverOrder(cells),
      runtimeSources: runtimeSources(levers),
    },
    machine: machine(),
    runner: { node: process.version },
    runtimes: runtimeVersions(levers),
    frameworks: frameworksMeta(selected),
    skipped: Object.fromEntries(skipped),
    ...(lambda ? { lambda } : {}),
    environment: {
      passed: [
        ...PASSED_ENV,
        `NODE_ENV=${CHILD_NODE_ENV}`,
        ...(compileCached ? [`${COMPILE_CACHE_ENV} (compile-cache cold/warm cells only)`] : []),
      ],
      dropped,
    },
  };
}
