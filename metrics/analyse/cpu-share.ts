/**
 * The CPU share of an invocation after INIT, as a model instead of a throttle: Lambda gives a
 * function memory / 1769 vCPUs, enforced (like a CFS bandwidth quota) as a budget of share × P ms
 * of CPU per period of P ms. A first invocation that needs c ms of CPU (measured here at full
 * speed) then takes:
 *
 * - c / share when c is much larger than one period's budget (a CPU-heavy request scales with
 *   1 / memory), and
 * - between c and c / share when it is short: it runs at full speed until the period's budget is
 *   spent, waits for the next period, and so on; where the period boundary falls is chance.
 *
 * A real throttle makes that chance a coin toss per sample (bimodal results at 128 MB); the model
 * takes the EXPECTED duration over a uniformly random phase of the period instead, computed
 * exactly on a fine grid of phases, so the same CPU time always gives the same estimate.
 *
 * Assumptions: the budget is full when the invocation starts (the process idled in `next`); the
 * invocation's time is its CPU demand, consumed at `rate` vCPUs while it may run (its CPU time over
 * its wall time, at least 1), plus the time it waited on anything else (wall − CPU / rate), which
 * does not use the budget; the period P is a calibrated parameter (see CALIBRATED_PERIOD_MS), not a
 * published property of Lambda.
 */
import { MB_PER_VCPU } from '../core/lambda-platform.ts';

/**
 * The period of the model, ms, and the share of the reference's unthrottled Duration that is CPU
 * (the rest: waiting on the Runtime API and the platform). Both fitted together to lambda-perf's
 * hello-world Durations (the shipped table, nodejs20.x/22.x/24.x × x86_64/arm64): from each line's
 * 1024 MB Duration the model gives its 128, 256 and 512 MB Durations within ±6 % (README: "The CPU
 * share of a short invocation"). They are fitted parameters, not published properties of Lambda.
 */
export const CALIBRATED_PERIOD_MS = 18;
export const REFERENCE_CPU_FRACTION = 0.7;

/** How many evenly spaced phases the expectation averages (midpoints of equal slices of one period). */
const PHASES = 1000;

export interface Invocation {
  /** CPU time the invocation used at full speed, ms (all threads) */
  cpuMs: number;
  /** its wall time at full speed, ms */
  wallMs: number;
}

export interface ShareModel {
  /** vCPUs after INIT: memoryMB / 1769 */
  share: number;
  /** the budget's period, ms */
  periodMs: number;
}

export function shareOf(memoryMB: number): number {
  return memoryMB / MB_PER_VCPU;
}

/**
 * How long `cpuMs` of CPU takes at `rate` vCPUs under a budget of share × P per period, when the
 * first period boundary comes `phaseMs` after the start and `startBudgetMs` of the current period's
 * budget is left.
 */
export function throttledTime(cpuMs: number, rate: number, model: ShareModel, phaseMs: number, startBudgetMs: number): number {
  const budget = model.share * model.periodMs;
  if (cpuMs <= 0) return 0;
  // a share at or above the demand's rate never runs out within a period
  if (model.share >= rate) return cpuMs / rate;
  // the first (partial) period: run until the demand, the budget left or the period ends
  const first = Math.min(cpuMs / rate, startBudgetMs / rate, phaseMs);
  const left = cpuMs - first * rate;
  if (left <= 1e-9) return first;
  // every later period starts full at a boundary and gives `budget` of CPU
  const fullPeriods = Math.ceil(left / budget) - 1;
  const last = left - fullPeriods * budget;
  return phaseMs + fullPeriods * model.periodMs + last / rate;
}

/**
 * The expected wall time of an invocation at a CPU share: the average over a uniformly random
 * phase of the period, the budget full at the start.
 */
export function expectedDuration(invocation: Invocation, model: ShareModel): number {
  const cpu = Math.max(0, invocation.cpuMs);
  const wall = Math.max(0, invocation.wallMs);
  if (cpu === 0) return wall;
  const rate = wall > 0 ? Math.max(1, cpu / wall) : 1;
  const waiting = Math.max(0, wall - cpu / rate);
  const budget = model.share * model.periodMs;
  let sum = 0;
  for (let i = 0; i < PHASES; i++) sum += throttledTime(cpu, rate, model, ((i + 0.5) / PHASES) * model.periodMs, budget);
  return waiting + sum / PHASES;
}

/** The estimate at a memory size with the calibrated period. */
export function durationAtMemory(invocation: Invocation, memoryMB: number, periodMs = CALIBRATED_PERIOD_MS): number {
  return expectedDuration(invocation, { share: shareOf(memoryMB), periodMs });
}
