/** What `run` is asked for: the cells (selection, targets, memory sizes, levers) and how to sample them. */
import type { CostOptions } from '../analyse/cost.ts';
import type { PrecisionSettings } from '../analyse/precision.ts';
import type { AppSpec } from '../core/app.ts';
import type { CellOptions, PreparedCells } from '../plan/cells.ts';
import type { Order } from '../core/dimensions.ts';
import type { Shard } from './jobs.ts';

/** With memory sizes: the INIT CPU and the quota period (--init-cpus, --cpu-period). */
export interface LimitOptions {
  initCpus: number;
  cpuPeriodUs: number;
}

/** How many first hits `run` sends by default. */
export const DEFAULT_FIRST_HITS = 10;

export interface RunOptions extends CellOptions {
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
  /** `measure`: the user's apps (recorded in meta.json): the cells come from them instead of generated files */
  apps?: AppSpec[];
  /** where progress goes (stderr by default); TEMPORARY until cli/run.ts calls the pipeline with its Deps */
  progressStream?: NodeJS.WriteStream;
  /** TEMPORARY until cli/run.ts calls the pipeline with its Deps (the CellSource) */
  prepare?: (env: NodeJS.ProcessEnv, log: (line: string) => void) => Promise<PreparedCells>;
  /** --attribute: one more, unrecorded, profiled run per cell, attributed to packages (attribution.json) */
  attribute?: boolean;
  /** samples per counted cell (default 1) */
  countSamples?: number;
  /** runs in flight at once (counted cells only); undefined: the cores when every cell is counted, else 1 */
  jobs?: number;
  /** measure only this part of the cells */
  shard?: Shard;
}
