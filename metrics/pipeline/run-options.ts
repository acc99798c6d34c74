/**
 * What a run is asked for, as the planner and meta.json take it: the cells (selection or apps,
 * targets, memory sizes, levers) and how to sample them. The use cases take a RunSpec
 * (core/run-spec.ts) and derive these from it (runOptionsOf).
 */
import type { CostOptions } from '../analyse/cost.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import type { AppSpec } from '../core/app.ts';
import { targetsOf, type RunSpec } from '../core/run-spec.ts';
import type { CellOptions } from '../plan/cells.ts';
import type { LeverLists } from '../plan/levers.ts';
import type { Order } from '../core/dimensions.ts';
import type { Shard } from '../core/run-spec.ts';

/** With memory sizes: the INIT CPU and the quota period (--init-cpus, --cpu-period). */
export interface LimitOptions {
  initCpus: number;
  cpuPeriodUs: number;
}

/** `run`'s cells: generated files of the selected frameworks. */
export type GeneratedRun = CellOptions & { apps?: undefined };

/** `measure`'s cells: the user's apps (their names are the cells' frameworks), under the same levers, sizes and measures. */
export type AppsRun = Omit<CellOptions, 'frameworks' | 'routes' | 'variants' | 'shapes' | 'schemas'> & {
  /** the apps, recorded in meta.json (their variables by name only) */
  apps: AppSpec[];
  /** the folder the apps were named from: meta.json records paths under it as `<cwd>/…` */
  cwd?: string;
};

/** What a run is asked for: its cells (generated or the user's apps) and how to sample them. */
export type RunOptions = (GeneratedRun | AppsRun) & RunSettings;

export interface RunSettings {
  /** samples per cell, or `auto`: rounds until each cell's median is known to `precision` */
  samples: number | 'auto';
  /** with `samples: 'auto'` */
  precision?: PrecisionSettings;
  warmup: number;
  timeoutMs: number;
  order: Order;
  seed: string;
  /** --first-hits: requests to further routes after each sample's timed answer (0 when absent; the CLI's default is core/run-spec.ts's) */
  firstHits?: number;
  out: string | undefined;
  /** the command line, for meta.json */
  command: string;
  /** the cost model (--memory, --arch, --price), kept in meta.json for the report */
  cost?: CostOptions;
  /** with memory sizes: the INIT CPU and the quota period */
  limits?: LimitOptions;
  /** --attribute: one more, unrecorded, profiled run per cell, attributed to packages (attribution.json) */
  attribute?: boolean;
  /** samples per counted cell (default 1) */
  countSamples?: number;
  /** runs in flight at once (counted cells only); undefined: the cores when every cell is counted, else 1 */
  jobs?: number;
  /** measure only this part of the cells */
  shard?: Shard;
}

/** The lever lists the planner takes (plan/levers.ts); `by-target` file caches are its own default. */
function leversOf({ cells }: Pick<RunSpec, 'cells'>): LeverLists {
  return {
    runtimes: cells.runtimes,
    builds: cells.builds,
    compileCaches: cells.compileCaches,
    lambdaRuntimes: cells.lambdaRuntimes,
    bootstraps: cells.bootstraps,
    ...(cells.fileCaches === 'by-target' ? {} : { fileCaches: cells.fileCaches }),
  };
}

/** What the planner is asked for: the spec's cells (generated, or the user's apps) with their levers, sizes and measures. */
export function cellOptionsOf(spec: Pick<RunSpec, 'source' | 'cells'>): GeneratedRun | AppsRun {
  const { source, cells } = spec;
  const common = {
    node: cells.node,
    levers: leversOf(spec),
    targets: targetsOf(spec),
    ...(cells.memories.length ? { memories: cells.memories } : {}),
    lambdaReference: cells.lambdaReference,
    measures: cells.measures,
  };
  if (source.kind === 'apps') return { ...common, apps: source.apps, ...(source.cwd ? { cwd: source.cwd } : {}) };
  const { frameworks, routes, variants, shapes, schemas } = source;
  return { ...common, frameworks, routes, variants, shapes, schemas };
}

/** A RunSpec as the run's own options (what meta.json records is unchanged from before the spec). */
export function runOptionsOf(spec: RunSpec): RunOptions {
  const { source, sampling, output, cost } = spec;
  return {
    ...cellOptionsOf(spec),
    command: spec.command,
    samples: sampling.samples,
    precision: sampling.precision,
    warmup: sampling.warmup,
    timeoutMs: sampling.timeoutMs,
    order: sampling.order,
    seed: sampling.seed,
    firstHits: source.kind === 'generated' ? sampling.firstHits : 0,
    countSamples: sampling.countSamples,
    ...(sampling.jobs === 'auto' ? {} : { jobs: sampling.jobs }),
    ...(sampling.shard ? { shard: sampling.shard } : {}),
    out: output.out,
    attribute: output.attribute,
    cost: {
      memoryMB: cost.memoryMB,
      architectures: cost.architectures,
      ...(cost.pricePerGBs ? { pricePerGBs: cost.pricePerGBs } : {}),
      ...(cost.budgetMs !== undefined ? { budgetMs: cost.budgetMs } : {}),
    },
    limits: spec.limits,
  };
}
