/** What `run` is asked for: the cells (selection, targets, memory sizes, levers) and how to sample them. */
import type { CostOptions } from '../analyse/cost.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import type { AppSpec } from '../core/app.ts';
import type { CellOptions } from '../plan/cells.ts';
import type { Order } from '../plan/order.ts';
import type { Shard } from './jobs.ts';

/** With memory sizes: the INIT CPU and the quota period (--init-cpus, --cpu-period). */
export interface LimitOptions {
  initCpus: number;
  cpuPeriodUs: number;
}

/** How many first hits `run` sends by default. */
export const DEFAULT_FIRST_HITS = 10;

/** `run`'s cells: generated files of the selected frameworks. */
export type GeneratedRun = CellOptions & { apps?: undefined };

/** `measure`'s cells: the user's apps (their names are the cells' frameworks), under the same levers, sizes and measures. */
export type AppsRun = Omit<CellOptions, 'frameworks' | 'routes' | 'variants' | 'shapes' | 'schemas'> & {
  /** the apps, recorded in meta.json (their variables by name only) */
  apps: AppSpec[];
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
  /** --first-hits: requests to further routes after each sample's timed answer (0 when absent; the CLI's default is DEFAULT_FIRST_HITS) */
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
