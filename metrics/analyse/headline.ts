/**
 * A published run in a line: its ranking at its largest route count and its floor, on the measure
 * that transfers between machines (the child's CPU time to the first answer, or the instruction count
 * of a counted run), wall time beside it; and which run to quote for which question. RESULTS.md and
 * results/index.html show both.
 */
import type { CellSummary } from './aggregate.ts';
import { seriesOf } from './scaling.ts';
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import { targetKind, isLocalHandler, COUNTED_NAME } from '../core/kinds.ts';

/** What a ranking rests on. */
export type RankingBasis = 'cpu' | 'instructions' | 'wall';

export const BASIS_TEXT: Record<RankingBasis, string> = {
  cpu: 'CPU time to first response (the child\u2019s user + system ms; transfers between machines better than wall time)',
  instructions: 'instructions to the first answer (deterministic: the load does not move them)',
  wall: 'wall time to first response (this run recorded no CPU time)',
};

export interface RankedCell {
  /** the series (framework and every non-default dimension) */
  label: string;
  routes: number;
  /** the figure the ranking rests on: ms (cpu, wall) or instructions */
  value: number;
  /** wall time to the first response, ms (timed cells) */
  wallMs?: number;
}

export interface Headline {
  basis: RankingBasis;
  /** the route count ranked: the largest of the run */
  routes: number;
  /** cheapest first */
  ranking: RankedCell[];
  /** node-http at its smallest route count (the floor), when the run has it */
  floor?: RankedCell;
}

function ranked(summary: CellSummary, label: string, basis: RankingBasis): RankedCell | undefined {
  const wall = summary.metrics.firstResponse?.median;
  const value =
    basis === COUNTED_NAME
      ? summary.instructions?.total?.median
      : basis === 'cpu'
        ? summary.cpu?.firstResponse?.median
        : summary.metrics.firstResponse?.median;
  if (value === undefined) return undefined;
  return { label, routes: summary.cell.routes, value, ...(wall !== undefined && basis !== COUNTED_NAME ? { wallMs: wall } : {}) };
}

/** The headline of a run's timed cells (else its counted ones); undefined when no cell answered. */
export function headlineOf(summaries: readonly CellSummary[], counted: readonly CellSummary[]): Headline | undefined {
  // the hello-world reference measured beside Lambda cells is no framework: it is not ranked
  const framework = (s: CellSummary) => s.cell.framework !== REFERENCE_FRAMEWORK;
  const timed = summaries.filter((s) => framework(s) && s.ok > 0 && s.metrics.firstResponse);
  const pool = timed.length ? timed : counted.filter((s) => framework(s) && s.instructions?.total);
  if (!pool.length) return undefined;
  const basis: RankingBasis = !timed.length ? 'instructions' : timed.every((s) => s.cpu?.firstResponse) ? 'cpu' : 'wall';
  const series = seriesOf([...pool]);
  const routes = Math.max(...pool.map((s) => s.cell.routes));
  const ranking = series
    .flatMap((s) => s.cells.filter((c) => c.cell.routes === routes).map((c) => ranked(c, s.label, basis)))
    .filter((r): r is RankedCell => r !== undefined)
    .sort((a, b) => a.value - b.value || a.label.localeCompare(b.label));
  const floorSeries = series.find((s) => s.label === 'node-http');
  const floorCell = floorSeries?.cells.reduce((a, b) => (b.cell.routes < a.cell.routes ? b : a));
  const floor = floorCell && ranked(floorCell, 'node-http', basis);
  return { basis, routes, ranking, ...(floor ? { floor } : {}) };
}

/** What a run is, for choosing which one to quote. */
export interface RunFacts {
  name: string;
  summaries: readonly CellSummary[];
  counted: readonly CellSummary[];
  /** the machine was busy while it ran (meta.json's load) */
  busy: boolean;
  /** timed samples per cell as asked */
  samples: number;
}

/** The questions a published run answers, and which cells a run must have to answer each. */
export const QUESTIONS: { question: string; fits: (run: RunFacts) => readonly CellSummary[]; loadFree?: true }[] = [
  {
    question: 'a server\u2019s cold start by framework and route count',
    fits: (run) =>
      run.summaries.filter((s) => targetKind(s.cell.target).plain && s.cell.build === 'plain' && s.cell.compileCache === 'off'),
  },
  {
    question: 'a Lambda handler\u2019s Init on Lambda and its price',
    fits: (run) => run.summaries.filter((s) => isLocalHandler(s.cell.target)),
  },
  { question: 'the work a route costs, independent of the machine', fits: (run) => run.counted, loadFree: true },
  {
    question: 'what a build or the compile cache changes',
    fits: (run) => {
      const varied = (pick: (s: CellSummary) => string) => new Set(run.summaries.map(pick)).size > 1;
      return varied((s) => s.cell.build) || varied((s) => s.cell.compileCache) ? run.summaries : [];
    },
  },
];

/**
 * The run to quote for each question: among the runs with cells that answer it, a run of a quiet
 * machine before a busy one (counts: whatever the load), then the one with the most frameworks × route counts, then the most
 * samples a cell. Returns run name → its questions.
 */
export function runsToQuote(runs: readonly RunFacts[]): Map<string, string[]> {
  const quoted = new Map<string, string[]>();
  for (const { question, fits, loadFree } of QUESTIONS) {
    const candidates = runs
      .map((run) => {
        const cells = fits(run);
        const frameworks = new Set(cells.map((c) => c.cell.framework)).size;
        const routes = new Set(cells.map((c) => c.cell.routes)).size;
        return { run, busy: loadFree ? false : run.busy, breadth: cells.length ? frameworks * routes : 0 };
      })
      .filter((c) => c.breadth > 0)
      .sort(
        (a, b) =>
          Number(a.busy) - Number(b.busy) || b.breadth - a.breadth || b.run.samples - a.run.samples || a.run.name.localeCompare(b.run.name),
      );
    const best = candidates[0]?.run.name;
    if (best) quoted.set(best, [...(quoted.get(best) ?? []), question]);
  }
  return quoted;
}
