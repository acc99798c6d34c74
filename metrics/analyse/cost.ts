/**
 * What the measured cold starts would cost on AWS Lambda, which bills the INIT phase of on-demand
 * functions since 1 August 2025: $ per million cold starts = ms/1000 × memory GB × $ per GB-s × 10^6.
 * Local timings are not Lambda timings; this is a scale for comparing frameworks, not a bill.
 */
import { targetKind } from '../core/kinds.ts';
import type { WebRates } from '../core/web-platform.ts';
import type { CellSummary } from './aggregate.ts';
import {
  DEFAULT_ARCHITECTURE,
  DEFAULT_MEMORY_MB,
  MB_PER_GB,
  PRICE_PER_GB_SECOND,
  REQUEST_PRICE_PER_MILLION,
  type Architecture,
} from '../core/lambda-platform.ts';
import type { MetaCost } from '../core/meta-spec.ts';

export interface CostSettings {
  memoryMB: number;
  /** the architecture the cost table prices: the first of `architectures` */
  arch: Architecture;
  /** every architecture the report estimates Lambda cells for (--arch x86_64,arm64), the first is `arch` */
  architectures: Architecture[];
  /** $ per GB-second */
  pricePerGBs: number;
  /** true when the price was given (--price) rather than taken from the architecture */
  customPrice: boolean;
  /** the user's Web Functions rates (--price-file, --web-*-price): a Web Function's cold start has a $ only with them */
  webRates?: WebRates;
}

/** What a user may give (on `run`, kept in meta.json's spec, or on `report`). */
export interface CostOptions {
  memoryMB?: number;
  /** the architectures, in the order given (the first prices the cost table) */
  architectures?: Architecture[];
  pricePerGBs?: number;
  /** --budget (ms): not a price, but kept with the report's settings; the curves read it */
  budgetMs?: number;
  webRates?: WebRates;
}

/** $ per million cold starts of `ms` each. Lambda counts a GB as 1024 MB. */
export function costPerMillion(ms: number, settings: Pick<CostSettings, 'memoryMB' | 'pricePerGBs'>): number {
  return (ms / 1000) * (settings.memoryMB / MB_PER_GB) * settings.pricePerGBs * 1e6;
}

/**
 * The report's flags win over what the run stored, which wins over the defaults. A price given
 * with the same flags as an --arch wins over that arch's price; a report's --arch alone takes its
 * arch's price even when the run had given --price.
 */
export function resolveCost(report: CostOptions = {}, stored: CostOptions = {}): CostSettings {
  const architectures = report.architectures?.length
    ? report.architectures
    : stored.architectures?.length
      ? stored.architectures
      : [DEFAULT_ARCHITECTURE];
  const arch = architectures[0]!;
  const memoryMB = report.memoryMB ?? stored.memoryMB ?? DEFAULT_MEMORY_MB;
  const price = report.pricePerGBs ?? (report.architectures?.length ? undefined : stored.pricePerGBs);
  const webRates = report.webRates ?? stored.webRates;
  return {
    memoryMB,
    arch,
    architectures,
    pricePerGBs: price ?? PRICE_PER_GB_SECOND[arch],
    customPrice: price !== undefined,
    ...(webRates ? { webRates } : {}),
  };
}

/** The price of one of the report's architectures: the price given applies to the first (the only one it may be given with). */
export function priceOf(settings: CostSettings, architecture: Architecture): number {
  return architecture === settings.arch ? settings.pricePerGBs : PRICE_PER_GB_SECOND[architecture];
}

/** The cost model meta.json's spec holds (memory, architectures, price). */
export function storedCost(cost: MetaCost | undefined): CostOptions {
  if (!cost) return {};
  const architectures = cost.architectures?.length ? cost.architectures : cost.architecture ? [cost.architecture] : undefined;
  return {
    ...(cost.memoryMB !== undefined ? { memoryMB: cost.memoryMB } : {}),
    ...(architectures ? { architectures } : {}),
    ...(cost.pricePerGBs !== undefined ? { pricePerGBs: cost.pricePerGBs } : {}),
    ...(cost.budgetMs !== undefined ? { budgetMs: cost.budgetMs } : {}),
    ...(cost.webRates ? { webRates: cost.webRates } : {}),
  };
}

/** What a million cold starts of one cell cost, and from which figures. */
export interface CellCost {
  perMillion: number;
  /**
   * `firstResponse`: the median wall time to the first answer; `billed`: the median Billed Duration plus
   * the request price; `estimate`: the calibrated estimate of Lambda's Billed Duration plus the request price
   */
  basis: 'firstResponse' | 'billed' | 'estimate';
  /** the memory size priced: the cell's own (--lambda-memory), else the cost model's */
  memoryMB: number;
}

/**
 * A cell's cost: a Lambda-shaped cell (its REPORT figures) by its median Billed Duration plus the
 * request price (or, given, by the calibrated estimate of it), any other by its median firstResponse;
 * at the cell's own memory size when it ran at one. Undefined without a successful sample.
 */
export function cellCost(summary: CellSummary, settings: CostSettings, estimatedBilledMs?: number): CellCost | undefined {
  // a Web Function is billed on active CPU and memory at rates that are not public: priced only at the user's
  // (report/web-functions.ts), never at the event functions' GB-second price
  if (targetKind(summary.cell.target).caps) return undefined;
  const memoryMB = summary.cell.memory || settings.memoryMB;
  const priced = { memoryMB, pricePerGBs: settings.pricePerGBs };
  if (summary.lambda && estimatedBilledMs !== undefined) {
    return { perMillion: costPerMillion(estimatedBilledMs, priced) + REQUEST_PRICE_PER_MILLION, basis: 'estimate', memoryMB };
  }
  if (summary.lambda) {
    return { perMillion: costPerMillion(summary.lambda.billedMs.median, priced) + REQUEST_PRICE_PER_MILLION, basis: 'billed', memoryMB };
  }
  const median = summary.metrics.firstResponse?.median;
  return median === undefined ? undefined : { perMillion: costPerMillion(median, priced), basis: 'firstResponse', memoryMB };
}
