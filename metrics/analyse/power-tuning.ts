/**
 * A power-tuning view of cold starts: per framework and route count, what a cold start costs at
 * each Lambda memory size, the cheapest size, the fastest size within +10 % of that cost, the
 * smallest size that ran at all, and the platform limits a cell crosses. Pure functions on the
 * cells' medians; the table and the chart spec are built here, rendered elsewhere.
 */
import type { TopLevelSpec } from 'vega-lite';
import { costPerMillion, dollars } from '../cost.ts';
import { logTicks } from '../output/charts.ts';
import { markdownTable, ms, type Align } from '../output/format.ts';

/** Lambda's INIT phase of an on-demand function may take at most 10 s. */
export const INIT_LIMIT_MS = 10_000;
/** API Gateway gives up on an integration after 29 s. */
export const API_GATEWAY_TIMEOUT_MS = 29_000;
/** Lambda's request charge, $ per million requests. */
export const REQUEST_PRICE_PER_MILLION = 0.2;
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
  };
}

type RanSize = PowerSize & { costPerMillion: number; firstResponseMs: number };

function ran(size: PowerSize): size is RanSize {
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

const INIT_MARK = '†';
const RESPONSE_MARK = '‡';

function marks(size: PowerSize): string {
  return `${size.initOverLimit ? ` ${INIT_MARK}` : ''}${size.responseOverLimit ? ` ${RESPONSE_MARK}` : ''}`;
}

function sizeText(size: PowerSize | undefined): string {
  if (!size) return '';
  if (size.outOfMemory) return 'out of memory';
  if (!ran(size)) return '–';
  return `${ms(size.firstResponseMs)} ms · ${dollars(size.costPerMillion)}${marks(size)}`;
}

function choiceText(row: PowerRow, memoryMB: number | undefined): string {
  const size = row.sizes.find((s) => s.memoryMB === memoryMB);
  if (!size || !ran(size)) return '–';
  return `${size.memoryMB} MB (${dollars(size.costPerMillion)}, ${ms(size.firstResponseMs)} ms)${marks(size)}`;
}

/** The power-tuning table: one row per framework × routes, a column per memory size, the three choices, then a legend. */
export function powerTuningMarkdown(rows: PowerRow[], price: PowerPrice): string {
  if (rows.length === 0) return '_No cell was measured at a Lambda memory size._';
  const memories = [...new Set(rows.flatMap((r) => r.sizes.map((s) => s.memoryMB)))].sort((a, b) => a - b);
  const headers = ['framework', 'routes', ...memories.map((m) => `${m} MB`), 'cheapest', 'fastest within +10 %', 'smallest that ran'];
  const align: Align[] = ['left', 'right', ...memories.map((): Align => 'right'), 'left', 'left', 'left'];
  const body = rows.map((row) => [
    row.framework,
    String(row.routes),
    ...memories.map((m) => sizeText(row.sizes.find((s) => s.memoryMB === m))),
    choiceText(row, row.cheapest),
    choiceText(row, row.fastestWithinBudget),
    row.smallestThatRan === undefined ? 'none' : `${row.smallestThatRan} MB`,
  ]);
  const requests = price.includeRequests ? ` + $${REQUEST_PRICE_PER_MILLION} per million requests` : '';
  const legend = [
    `Each cell: median cold start (spawn → first response) · $ per million cold starts = ms / 1000 × MB / 1024 × ` +
      `$${price.pricePerGBs} per GB-s × 10^6${requests}. "fastest within +10 %": the fastest size costing at most ` +
      `${Math.round(BUDGET_SHARE * 100)} % more than the cheapest. Sizes that ran out of memory are left out of every choice.`,
    `${INIT_MARK} INIT over ${INIT_LIMIT_MS / 1000} s (Lambda's on-demand INIT limit) · ${RESPONSE_MARK} first response over ` +
      `${API_GATEWAY_TIMEOUT_MS / 1000} s (API Gateway's integration timeout).`,
  ];
  return `${markdownTable(headers, body, align)}\n\n${legend.join('\n\n')}`;
}

export interface PowerPoint {
  series: string;
  memoryMB: number;
  ms: number;
  dollars: number;
}

export function powerPoints(rows: PowerRow[]): PowerPoint[] {
  return rows.flatMap((row) =>
    row.sizes.filter(ran).map((s) => ({
      series: `${row.framework} · ${row.routes} routes`,
      memoryMB: s.memoryMB,
      ms: s.firstResponseMs,
      dollars: s.costPerMillion,
    })),
  );
}

const WIDTH = 640;
const PANEL_HEIGHT = 260;

/**
 * Cold-start time and $ per million cold starts against memory size, one line per framework ×
 * routes, log axes; API Gateway's 29 s as a dashed rule when the time axis reaches it. No config
 * (fonts, legend width): the caller adds the one its other charts use.
 */
export function powerTuningSpec(rows: PowerRow[]): TopLevelSpec {
  const values = powerPoints(rows);
  const title = 'Cold start and its cost against Lambda memory size';
  if (values.length === 0) {
    const subtitle = 'no cell ran at a memory size';
    return { title: { text: title, subtitle }, width: WIDTH, height: 80, data: { values: [{}] }, mark: { type: 'text', text: 'no data' } };
  }
  const memories = [...new Set(values.map((v) => v.memoryMB))].sort((a, b) => a - b);
  const labels = [...new Set(values.map((v) => v.series))];
  const ticksOf = (field: 'ms' | 'dollars') => logTicks(Math.min(...values.map((v) => v[field])), Math.max(...values.map((v) => v[field])));
  const msTicks = ticksOf('ms');
  const dollarTicks = ticksOf('dollars');
  const gatewayRule = API_GATEWAY_TIMEOUT_MS >= msTicks[0]! && API_GATEWAY_TIMEOUT_MS <= msTicks.at(-1)!;
  const memoryScale = { type: 'log' as const, domain: [memories[0]!, memories.at(-1)!], nice: false, padding: 12 };
  const memoryAxis = { values: memories, format: ',' };
  const x = { field: 'memoryMB', type: 'quantitative' as const, title: 'Lambda memory, MB (log)', scale: memoryScale, axis: memoryAxis };
  const scheme = labels.length > 10 ? 'tableau20' : 'tableau10';
  const color = { field: 'series', type: 'nominal', title: 'framework · routes', scale: { domain: labels, scheme } } as const;
  const line = { type: 'line', point: { size: 40 }, strokeWidth: 2 } as const;
  const y = (field: 'ms' | 'dollars', title: string, ticks: number[], format: string) => ({
    field,
    type: 'quantitative' as const,
    title,
    scale: { type: 'log' as const, domain: [ticks[0]!, ticks.at(-1)!], nice: false },
    axis: { values: ticks, format },
  });
  return {
    title: {
      text: title,
      subtitle: 'median per cell; INIT at full CPU, the first request at memory / 1769 vCPUs; sizes that ran out of memory are absent',
    },
    data: { values: values as unknown as Record<string, unknown>[] },
    vconcat: [
      {
        width: WIDTH,
        height: PANEL_HEIGHT,
        layer: [
          {
            mark: line,
            encoding: {
              x,
              y: y('ms', 'cold start: ms from spawn to first response (log)', msTicks, ','),
              color,
            },
          },
          ...(gatewayRule
            ? [
                { mark: { type: 'rule' as const, strokeDash: [4, 4], color: '#b00' }, encoding: { y: { datum: API_GATEWAY_TIMEOUT_MS } } },
                {
                  mark: { type: 'text' as const, align: 'left' as const, dx: 4, dy: -6, color: '#b00', text: 'API Gateway timeout, 29 s' },
                  encoding: { y: { datum: API_GATEWAY_TIMEOUT_MS }, x: { datum: memories[0]! } },
                },
              ]
            : []),
        ],
      },
      {
        width: WIDTH,
        height: PANEL_HEIGHT,
        mark: line,
        encoding: {
          x,
          y: y('dollars', '$ per million cold starts (log)', dollarTicks, '$,.3~f'),
          color,
        },
      },
    ],
    resolve: { scale: { color: 'shared' } },
  };
}
