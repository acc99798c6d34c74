/**
 * What the measured cold starts would cost on AWS Lambda, which bills the INIT phase of on-demand
 * functions since 1 August 2025: $ per million cold starts = ms/1000 × memory GB × $ per GB-s × 10^6.
 * Local timings are not Lambda timings; this is a scale for comparing frameworks, not a bill.
 */
import type { CellSummary } from './aggregate.ts';
import {
  ARCHITECTURE_SHORT_NAME,
  MB_PER_GB,
  PRICE_PER_GB_SECOND as LAMBDA_PRICE_PER_GB_SECOND,
  REQUEST_PRICE_PER_MILLION,
} from '../core/lambda-platform.ts';
import type { MetaCost } from '../core/meta-spec.ts';
export const ARCHES = ['x86', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

/** AWS Lambda's on-demand duration price, $ per GB-second (core/lambda-platform.ts), by the cost model's name of the architecture. */
export const PRICE_PER_GB_SECOND: Record<Arch, number> = {
  x86: LAMBDA_PRICE_PER_GB_SECOND.x86_64,
  arm64: LAMBDA_PRICE_PER_GB_SECOND.arm64,
};
export const DEFAULT_MEMORY_MB = 1024;
export const DEFAULT_ARCH: Arch = 'x86';

export interface CostSettings {
  memoryMB: number;
  arch: Arch;
  /** $ per GB-second */
  pricePerGBs: number;
  /** true when the price was given (--price) rather than taken from the architecture */
  customPrice: boolean;
}

/** What a user may give (on `run`, kept in meta.json options, or on `report`). */
export interface CostOptions {
  memoryMB?: number;
  arch?: Arch;
  pricePerGBs?: number;
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
  const arch = report.arch ?? stored.arch ?? DEFAULT_ARCH;
  const memoryMB = report.memoryMB ?? stored.memoryMB ?? DEFAULT_MEMORY_MB;
  const price = report.pricePerGBs ?? (report.arch !== undefined ? undefined : stored.pricePerGBs);
  return { memoryMB, arch, pricePerGBs: price ?? PRICE_PER_GB_SECOND[arch], customPrice: price !== undefined };
}

/** The cost model meta.json's spec holds (memory, architecture, price), in the cost model's own terms. */
export function storedCost(cost: MetaCost | undefined): CostOptions {
  if (!cost) return {};
  return {
    ...(cost.memoryMB !== undefined ? { memoryMB: cost.memoryMB } : {}),
    ...(cost.architecture ? { arch: ARCHITECTURE_SHORT_NAME[cost.architecture] } : {}),
    ...(cost.pricePerGBs !== undefined ? { pricePerGBs: cost.pricePerGBs } : {}),
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
