/**
 * attribution.json: what `--attribute` found per cell (one unrecorded, profiled run each), kept in the
 * run folder so that `report` rebuilds attribution.md and its chart from it like every other output.
 * Its types are here; writing and reading the file are store/attribution-file.ts.
 */
import type { Cell } from './cell.ts';

/* the figures of one profile (analyse/attribution.ts computes them) */
export interface PackageShare {
  name: string;
  selfMs: number;
  inclusiveMs: number;
  /** its self time up to the end of INIT, when the profile has that cut (Attribution.init) */
  initSelfMs?: number;
}

export interface ModuleLoad {
  /** the file, from its package folder on (`fastify/lib/route.js`) or relative to the app */
  file: string;
  owner: string;
  loadMs: number;
}

export interface Attribution {
  /** the whole profile: the sum of every sample's time, idle included */
  profiledMs: number;
  /** the profile without `(idle)`: what the percentages are of */
  busyMs: number;
  samples: number;
  /** by self time, largest first */
  packages: PackageShare[];
  /** the slowest module loads, largest first */
  modules: ModuleLoad[];
  /**
   * the profile up to the end of INIT (a server's listen, a handler's first `next`), cut where the
   * runner saw it on the profile's own clock; absent when the run could not place it (older files too)
   */
  init?: { profiledMs: number; busyMs: number };
}

export const ATTRIBUTION_FILE = 'attribution.json';

export interface CellAttribution {
  cell: Cell;
  /** the profiled run answered as the timed samples must */
  ok: boolean;
  /** why there is no attribution (the run failed, no profile was written, the runtime has no profiler) */
  reason?: string;
  /** the profiled run's own firstResponse, ms from spawn (the profiler slows it down) */
  firstResponseMs?: number;
  attribution?: Attribution;
  /** with --build bundle: bytes in the bundle per package (esbuild's metafile) */
  bundleBytes?: Record<string, number>;
}

export interface AttributionFile {
  version: 1;
  /** how the profiles were taken */
  method: { profiler: string; intervalUs: number };
  cells: CellAttribution[];
}
