/**
 * What one Web Function cold start uses, and costs only at the user's rates: active CPU seconds (the CPU
 * time of INIT), GB-seconds (INIT's wall time × the environment's 2 GB) and the request that waited for it.
 * cost = CPU-seconds × CPU rate + GB-seconds × GB-second rate + request rate. Without rates there is no $.
 */
import { WEB_FUNCTION_MEMORY_GB, type WebRates } from '../core/web-platform.ts';

export interface WebColdStartUse {
  /** INIT's CPU time, ms (all threads) */
  cpuMs: number;
  /** INIT's wall time, ms (spawn to listening) */
  initMs: number;
}

export interface WebColdStartCost {
  cpuSeconds: number;
  gbSeconds: number;
  /** $ of one cold start; undefined without the user's rates */
  dollars?: number;
}

export function webColdStartCost(use: WebColdStartUse, rates?: WebRates): WebColdStartCost {
  const cpuSeconds = use.cpuMs / 1000;
  const gbSeconds = (use.initMs / 1000) * WEB_FUNCTION_MEMORY_GB;
  if (!rates) return { cpuSeconds, gbSeconds };
  return { cpuSeconds, gbSeconds, dollars: cpuSeconds * rates.activeCpuSecond + gbSeconds * rates.gbSecond + rates.request };
}

/** The report's line: the use always, the $ (per million cold starts) only with rates. */
export function webCostLine(cost: WebColdStartCost): string {
  const use = `${cost.cpuSeconds.toFixed(3)} active CPU-s, ${cost.gbSeconds.toFixed(3)} GB-s a cold start`;
  return cost.dollars === undefined
    ? `${use}; no $: Web Functions' rates are not public, give yours (--price-file)`
    : `${use}; $${(cost.dollars * 1e6).toFixed(2)} per million cold starts at your rates`;
}
