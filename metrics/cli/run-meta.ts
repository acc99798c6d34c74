/** meta.json of a run: what was asked, on what machine, with which versions, limits and environment. */
import { frameworkVersion, installedVersion } from '../../generators/registry.ts';
import type { FrameworkGenerator } from '../../generators/types.ts';
import { costMetaOptions } from '../analyse/cost.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import { machine, toolVersion, type RunMeta } from '../core/meta.ts';
import { CHILD_NODE_ENV, PASSED_ENV } from '../measure/environment.ts';
import { COUNT_V8_FLAGS } from '../measure/counting.ts';
import { MB_PER_VCPU } from '../measure/limits/settings.ts';
import type { RunLimits } from '../measure/planned-run.ts';
import type { PreparedCells } from '../plan/cells.ts';
import { COMPILE_CACHE_ENV } from '../plan/launch.ts';
import { runtimeSources, runtimeVersions } from '../plan/levers.ts';
import type { RunOptions } from './run-options.ts';

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
  { selected, skipped, cells, levers }: PreparedCells,
  {
    startedAt,
    dropped,
    limits,
    precision,
  }: { startedAt: Date; dropped: string[]; limits: RunLimits | undefined; precision: PrecisionSettings },
): RunMeta {
  const compileCached = cells.some((c) => c.cell.compileCache !== 'off');
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
      ...(options.apps ? { apps: options.apps } : {}),
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
      runtimeSources: runtimeSources(levers),
    },
    machine: machine(),
    runner: { node: process.version },
    runtimes: runtimeVersions(levers),
    frameworks: frameworksMeta(selected),
    skipped: Object.fromEntries(skipped),
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
