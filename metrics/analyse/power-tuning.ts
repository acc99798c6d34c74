/**
 * A power-tuning view of cold starts: per framework and route count, what a cold start costs at
 * each Lambda memory size, the cheapest size, the fastest size within +10 % of that cost, the
 * smallest size that ran at all, and the platform limits a cell crosses. Pure functions on the
 * cells' medians; report/power-tuning.ts turns them into the table and the chart.
 */
import { costPerMillion } from './cost.ts';
import { REQUEST_PRICE_PER_MILLION } from '../core/lambda-platform.ts';

/** Lambda's INIT phase of an on-demand function may take at most 10 s. */
export const INIT_LIMIT_MS = 10_000;
/**
 * An HTTP API (what lambda:package deploys) gives up on its Lambda integration after 30 s (a REST
 * API's default limit is 29 s).
 */
export const API_GATEWAY_TIMEOUT_MS = 30_000;
/** "Fastest within budget": a size may cost at most this share more than the cheapest. */
export const BUDGET_SHARE = 0.1;
/** Costs are compared with this relative tolerance, so a size at exactly +10 % counts as within. */
const COST_TOLERANCE = 1e-9;

/** One measured cell at one memory size. */
export interface PowerCell {
  /** the framework's label (with any other dimension the run varies, e.g. `fastify [variant=plain]`) */
  framework: string;
  routes: number;
  memoryMB: number;
  /** median cold start (spawn → first valid response), ms; absent when no sample of the cell succeeded */
  firstResponseMs?: number;
  /** median INIT (spawn → ready, or → the first `next` of a Lambda runtime), ms */
  initMs?: number;
  /** some sample of the cell was killed by the memory limit: the size is excluded from every choice */
  outOfMemory?: boolean;
  /** the cold start's interval, ms, when it is a Lambda estimate with one (its Billed interval) */
  interval?: { low: number; high: number };
  /** the figures are a Lambda estimate beyond its evidence: the mark it carries in place of an interval */
  beyondEvidence?: string;
}

export interface PowerPrice {
  /** $ per GB-second */
  pricePerGBs: number;
  /** add Lambda's $0.20 per million requests */
  includeRequests?: boolean;
}

export interface PowerSize {
  memoryMB: number;
  firstResponseMs?: number;
  initMs?: number;
  /** $ per million cold starts; absent when the size did not run */
  costPerMillion?: number;
  outOfMemory: boolean;
  /** INIT over Lambda's 10 s limit */
  initOverLimit: boolean;
  /** first response over API Gateway's 29 s */
  responseOverLimit: boolean;
  /** the cold start's interval (PowerCell.interval) and the cost at its ends */
  interval?: { low: number; high: number };
  costInterval?: { low: number; high: number };
  /** the figures are a Lambda estimate beyond its evidence (PowerCell.beyondEvidence) */
  beyondEvidence?: string;
}

export interface PowerRow {
  framework: string;
  routes: number;
  /** every measured size, smallest first */
  sizes: PowerSize[];
  /** memory sizes (MB) of the choices; absent when no size ran */
  cheapest?: number;
  fastestWithinBudget?: number;
  smallestThatRan?: number;
  outOfMemoryAt: number[];
  /** sizes with no successful sample for another reason than memory */
  failedAt: number[];
}

/** $ per million cold starts of `ms` at `memoryMB` (the formula of the cost table, plus requests when asked). */
export function coldStartCost(msValue: number, memoryMB: number, price: PowerPrice): number {
  return costPerMillion(msValue, { memoryMB, pricePerGBs: price.pricePerGBs }) + (price.includeRequests ? REQUEST_PRICE_PER_MILLION : 0);
}

function sizeOf(cell: PowerCell, price: PowerPrice): PowerSize {
  const outOfMemory = cell.outOfMemory === true;
  const ran = !outOfMemory && cell.firstResponseMs !== undefined;
  return {
    memoryMB: cell.memoryMB,
    ...(cell.firstResponseMs !== undefined ? { firstResponseMs: cell.firstResponseMs } : {}),
    ...(cell.initMs !== undefined ? { initMs: cell.initMs } : {}),
    ...(ran ? { costPerMillion: coldStartCost(cell.firstResponseMs!, cell.memoryMB, price) } : {}),
    outOfMemory,
    initOverLimit: cell.initMs !== undefined && cell.initMs > INIT_LIMIT_MS,
    responseOverLimit: cell.firstResponseMs !== undefined && cell.firstResponseMs > API_GATEWAY_TIMEOUT_MS,
    ...(ran && cell.interval
      ? {
          interval: cell.interval,
          costInterval: {
            low: coldStartCost(cell.interval.low, cell.memoryMB, price),
            high: coldStartCost(cell.interval.high, cell.memoryMB, price),
          },
        }
      : {}),
    ...(cell.beyondEvidence !== undefined ? { beyondEvidence: cell.beyondEvidence } : {}),
  };
}

export type RanSize = PowerSize & { costPerMillion: number; firstResponseMs: number };

/** A size that ran (a cold start was measured and priced). */
export function ran(size: PowerSize): size is RanSize {
  return size.costPerMillion !== undefined && size.firstResponseMs !== undefined;
}

/** The first of `sizes` by `order` (sizes come smallest first, so ties go to the smaller size). */
function best(sizes: RanSize[], order: (a: RanSize, b: RanSize) => number): RanSize | undefined {
  return sizes.reduce<RanSize | undefined>((found, size) => (found === undefined || order(size, found) < 0 ? size : found), undefined);
}

function rowOf(framework: string, routes: number, cells: PowerCell[], price: PowerPrice): PowerRow {
  const sizes = cells.map((cell) => sizeOf(cell, price)).sort((a, b) => a.memoryMB - b.memoryMB);
  const usable = sizes.filter(ran);
  const cheapest = best(usable, (a, b) => a.costPerMillion - b.costPerMillion);
  const budget = cheapest && cheapest.costPerMillion * (1 + BUDGET_SHARE) * (1 + COST_TOLERANCE);
  const affordable = budget === undefined ? [] : usable.filter((s) => s.costPerMillion <= budget);
  const fastest = best(affordable, (a, b) => a.firstResponseMs - b.firstResponseMs || a.costPerMillion - b.costPerMillion);
  return {
    framework,
    routes,
    sizes,
    ...(cheapest ? { cheapest: cheapest.memoryMB } : {}),
    ...(fastest ? { fastestWithinBudget: fastest.memoryMB } : {}),
    ...(usable[0] ? { smallestThatRan: usable[0].memoryMB } : {}),
    outOfMemoryAt: sizes.filter((s) => s.outOfMemory).map((s) => s.memoryMB),
    failedAt: sizes.filter((s) => !s.outOfMemory && s.firstResponseMs === undefined).map((s) => s.memoryMB),
  };
}

/** Group the cells per framework × routes (sorted by framework, then routes) and choose the sizes. */
export function powerTuning(cells: PowerCell[], price: PowerPrice): PowerRow[] {
  const groups = new Map<string, PowerCell[]>();
  for (const cell of cells) {
    const key = JSON.stringify([cell.framework, cell.routes]);
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()]
    .map((group) => rowOf(group[0]!.framework, group[0]!.routes, group, price))
    .sort((a, b) => (a.framework === b.framework ? a.routes - b.routes : a.framework < b.framework ? -1 : 1));
}
