/**
 * The tail of a Lambda estimate: p50, p95 and p99 of Init Duration and of the first Duration, from
 * a cell's calibration (calibration.ts). The median is the estimate itself; the tail is modelled:
 *
 * - **Init: the shift model.** What varies from one real cold start to the next (where the sandbox
 *   is placed, the host, its storage) is the platform's, and the hello world shows it alone: the
 *   estimate's q-th percentile is its median plus the real reference's q-th percentile minus the
 *   reference's median, est_q = est_p50 + (R_q − R_p50), R the per-invocation Init Durations of
 *   lambda-perf's hello world of the cell's runtime line, architecture and memory size (the
 *   calibration table's row; tables written before the tail was computed have none, and then there
 *   is no tail). The cell's own spread here is not added: it is this machine's (it grows with the
 *   load), not Lambda's.
 *   Chosen over scaling the median by the reference's R_q / R_p50 on the public real distributions
 *   (docs/guide/lambda.md, "Tails of the estimate"; docs/findings/2026-11-26-init-tails.md): with the
 *   real median in place of the estimate's, the shift was within ±20 % of every real p95 and p99
 *   (k-i-soft's p95 −15 to −17 %), the scale up to 28 % over cebert's p99 of its DynamoDB handler,
 *   whose tail is about as long in ms as its crypto-only handler's. With the code-loading term's
 *   median (leave-one-out), every real p95 was within ±7 % and all 22 p95 and p99 within ±25 %.
 * - **Duration: the cell's own spread.** lambda-perf publishes one mean Duration a day, not an
 *   invocation's, so the platform's spread of a first Duration is unknown: the tail is the cell's
 *   invocation CPU time at its 95th and 99th percentiles through the same CPU share model as the
 *   median (calibration.ts computes it). Not validated: no public first Duration of a comparable
 *   function was found.
 */
import type { Calibration } from './calibration.ts';
import type { Spread } from '../calibration/lambda-reference.ts';

/** Three percentiles of a modelled distribution, ms. */
export interface Tail {
  p50: number;
  p95: number;
  p99: number;
}

export interface TailEstimate {
  init?: Tail;
  duration?: Tail;
  /** why Init has no tail */
  missing?: string;
}

/** est_q = est_p50 + (R_q − R_p50): the estimate's median moved by the real reference's own spread; undefined without R's tail. */
export function shiftedTail(p50: number, real: Spread): Tail | undefined {
  if (!Number.isFinite(p50) || real.p95 === undefined || real.p99 === undefined) return undefined;
  return { p50, p95: p50 + (real.p95 - real.median), p99: p50 + (real.p99 - real.median) };
}

/** The tails of one cell's estimate (none where the cell has no estimate). */
export function tailsOf(calibration: Calibration): TailEstimate {
  const { init, duration, row } = calibration;
  const result: TailEstimate = {};
  if (init && row) {
    const tail = shiftedTail(init.estimate, row.initMs);
    if (tail) result.init = tail;
    else result.missing = "the calibration table has no p95 and p99 of the reference's Init (written before they were computed)";
  }
  if (duration?.tail) result.duration = { p50: duration.estimate, p95: duration.tail.p95, p99: duration.tail.p99 };
  return result;
}
