/**
 * The figures the seed table's sections read from a run's summaries: wall and CPU times between marks,
 * ratios, the per-route cost and its quadratic term, and how each is written.
 */
import path from 'node:path';
import { median } from 'simple-statistics';
import { SAMPLES_FILE, type SampleRecord } from '../core/samples.ts';
import { forEachSample } from '../store/samples-file.ts';
import type { Align } from '../core/format.ts';
import { fileURLToPath } from 'node:url';

/** The project's folder (the run folders are read from results/published/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SEED_ROUTES = [10, 100, 500, 1000, 2000, 3000, 5000] as const;

export type Pick = (s: SampleRecord) => number | undefined;

/** A run folder's successful samples by cell (framework, routes, runtime). */
export class RunSamples {
  private readonly cells = new Map<string, SampleRecord[]>();
  constructor(readonly folder: string) {
    forEachSample(path.join(ROOT, folder, SAMPLES_FILE), (s) => {
      if (s.phase !== 'sample' || !s.ok) return;
      const key = RunSamples.key(s.cell.framework, s.cell.routes, s.cell.runtime);
      this.cells.set(key, [...(this.cells.get(key) ?? []), s]);
    });
  }

  static key(framework: string, routes: number, runtime = 'node'): string {
    return `${framework}|${routes}|${runtime}`;
  }

  /** `pick` over a cell's samples (those that have it). */
  values(framework: string, routes: number, pick: Pick, runtime = 'node'): number[] {
    return (this.cells.get(RunSamples.key(framework, routes, runtime)) ?? []).map(pick).filter((v): v is number => v !== undefined);
  }

  /** The median of `pick` over a cell's samples; undefined when the cell or the figure is absent. */
  median(framework: string, routes: number, pick: Pick, runtime = 'node'): number | undefined {
    const values = this.values(framework, routes, pick, runtime);
    return values.length ? median(values) : undefined;
  }
}

export const diff = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a - b);
/** Marks on the spawn timeline, and from the child's first statement (`start`). */
export const wall =
  (mark: 'start' | 'imported' | 'startup' | 'listen' | 'firstResponse'): Pick =>
  (s) =>
    s.marks?.[mark];
export const fromStart =
  (mark: 'imported' | 'startup' | 'listen'): Pick =>
  (s) =>
    diff(s.marks?.[mark], s.marks?.start);
/** CPU time since the process started, at a mark; and between two marks. */
export const cpu =
  (mark: 'imported' | 'startup' | 'listen'): Pick =>
  (s) =>
    s.cpu?.[mark];
export const cpuBetween =
  (from: 'imported' | 'startup', to: 'startup' | 'listen'): Pick =>
  (s) =>
    diff(s.cpu?.[to], s.cpu?.[from]);
/** Instructions from the first statement to listen (an app's start-up, `ready`). */
export const readyInstructions: Pick = (s) => diff(s.instructions?.listen, s.instructions?.start);

export const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '–' : (a / b).toFixed(2);
export const right = (n: number): Align[] => ['left', ...Array<Align>(n - 1).fill('right')];
export const millions = (v: number | undefined) => (v === undefined ? '–' : `${(v / 1e6).toFixed(1)} M`);
/** A difference in ms over N², in ns: constant across N when the difference is quadratic in the routes. */
export const quadratic = (delta: number | undefined, n: number) =>
  delta === undefined || n < QUADRATIC_FROM ? '–' : ((delta / (n * n)) * 1e6).toFixed(1);
/** Below this many routes a difference of a few ms over N² says nothing. */
const QUADRATIC_FROM = 1000;
/** ms per route between consecutive route counts. */
export function perRoute(points: [number, number | undefined][]): string[] {
  return points.slice(1).map(([n, v], i) => {
    const [n0, v0] = points[i]!;
    return v === undefined || v0 === undefined ? '–' : ((v - v0) / (n - n0)).toFixed(3);
  });
}
