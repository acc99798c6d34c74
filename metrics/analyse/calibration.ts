/**
 * From a local Lambda cell to an estimate of the same cell on AWS Lambda, through the hello-world
 * reference measured in the same run under the same settings and its real cold starts (the
 * calibration table):
 *
 * - Init: what Lambda adds = the real reference's median Init Duration − the local reference's;
 *   estimate = the cell's Init Duration + that (sandbox and extension setup, log shipping and the
 *   host's CPU cannot happen here; the difference of the same function holds all of it) + the
 *   code-loading term (code-loading.ts: the cell's excess over the local reference as a ratio, at
 *   the speed the term was fitted at, as Lambda pays it, minus the excess measured here; what a new
 *   sandbox pays beyond hello world for the code an app loads, fitted on public real data).
 * - Duration: the cell's invocation CPU time as Lambda would spend it, plus the reference's non-CPU
 *   part, through the CPU share model (cpu-share.ts) at the cell's memory size. Lambda's CPU time of
 *   the reference is its real unthrottled Duration × REFERENCE_CPU_FRACTION. When the run timed the
 *   CPU reference's loop here (meta.json lambda.cpuSpeed), the cell's CPU is the reference's Lambda CPU
 *   plus what the cell spends beyond the local reference, at Lambda's speed (the loop's real CPU time
 *   over its local one, calibration/lambda-cpu-reference.ts). Runs from before that scale the cell's CPU by
 *   the reference's Lambda CPU over its local CPU, as they always did.
 *
 * - Init split (issue 41): when the cell and the reference recorded INIT's split into loading and
 *   running (the probe's time inside require, and the rest of the file's own INIT) and the run timed
 *   the CPU reference's loop, the code-loading term applies to the loading part only (the ratio of
 *   the cell's Init less its running to the reference's likewise), and the running part (the cell's
 *   running beyond the reference's) is CPU work, which INIT runs at full speed: it is scaled by
 *   Lambda's CPU speed against this machine's, not by 1 + k. estimate = the real hello world + the
 *   loading excess as Lambda pays it + running × the CPU factor. Runs without the split keep the
 *   estimate above.
 *
 * Imported cells (`aws-lambda`) are real and get no estimate; the reference's own cells get one
 * (it reproduces the table there, a check of the model).
 */
import { REFERENCE_FRAMEWORK } from '../core/lambda-platform.ts';
import { cellKey, makeCell, type Cell } from '../core/cell.ts';
import { referenceRow, type ReferenceRow, type ReferenceTable, type Spread } from '../calibration/lambda-reference.ts';
import type { CellSummary, InitSplitSummary, LambdaSummary } from './aggregate.ts';
import { CPU_REFERENCE, lambdaCpuPerIteration, localCpuPerIteration, type CpuReferenceRow } from '../calibration/lambda-cpu-reference.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';
import { CALIBRATED_PERIOD_MS, durationAtMemory, REFERENCE_CPU_FRACTION } from './cpu-share.ts';
import { storedValue, VARIANTS } from '../core/dimensions.ts';
import { codeLoadingTerm, onLambdaAt, pairedRatio, type CodeLoadingTerm, type TermModel } from './code-loading.ts';
import {
  billedInterval,
  billedMs,
  extrapolationOf,
  initInterval,
  isBeyondEvidence,
  ratioInterval,
  runningBeyondOf,
  type Extrapolation,
  type Interval,
  type RunningBeyond,
} from './estimate-interval.ts';
import { bootstrapMedianCI } from './stats.ts';
import { isLocalHandler } from '../core/kinds.ts';

/** The memory size whose reference Duration counts as unthrottled (Lambda's hello world runs at full speed from 256 MB). */
export const UNTHROTTLED_REFERENCE_MB = 1024;

export type Addition = { median: number; low: number; high: number };

export interface Calibration {
  /** what the estimate is derived from, or why there is none */
  runtime: string;
  architecture: string;
  memoryMB: number;
  /** the row of the real reference used for Init (the cell's size, else the nearest) */
  row?: ReferenceRow;
  /** why there is no estimate */
  missing?: string;
  /**
   * Init: measured here + what Lambda adds to hello world + the code-loading term (code-loading.ts), given its coefficient;
   * `interval`: where the real Init lies given the cell's spread and the fit's residuals (estimate-interval.ts);
   * `extrapolation`: the cell's excess lies beyond the excesses the term was fitted on
   */
  init?: {
    measured: number;
    addition: Addition;
    estimate: number;
    codeLoading?: CodeLoadingTerm;
    /** the running part, when the samples recorded INIT's split (the code-loading term then covers the loading part only) */
    running?: RunningTerm;
    /** absent beyond the evidence (estimate-interval.ts): an interval would claim a coverage nothing checked there */
    interval?: Interval;
    extrapolation?: Extrapolation;
    /** the running part lies beyond what a fitted row had (no real figure validates it) */
    runningUnvalidated?: RunningBeyond;
  };
  /** `tail`: the estimate at the cell's 95th and 99th percentile of invocation CPU time (init-tails.ts); `interval`: of its median CPU */
  duration?: { measured: number; addition: Addition; estimate: number; tail?: { p95: number; p99: number }; interval?: Interval };
  /** Init + Duration estimates, each rounded up to 1 ms */
  billedEstimate?: number;
  /** the Billed estimate's interval: Init's and Duration's ends, each rounded up to 1 ms */
  billedInterval?: Interval;
  /** the local reference's medians it used */
  localReference?: { initMs: number; invokeCpuMs?: number; n: number };
  /** Lambda's CPU speed against this machine's, when the run timed the CPU reference's loop */
  cpuSpeed?: CpuSpeedFactor;
}

/**
 * INIT's running part as Lambda runs it: CPU work, at Lambda's CPU speed (issue 41). The factor is CPU
 * time over CPU time (the loop's process.cpuUsage here, its unthrottled Duration there), so the part
 * it scales is the running part's CPU time when the samples have it (hereCpuMs), else its wall time.
 */
export interface RunningTerm {
  /** the cell's running median − the reference's, here, ms */
  hereMs: number;
  /** the same in the process's CPU time (the cell's CPU running median − the reference's), when both recorded it */
  hereCpuMs?: number;
  /** hereCpuMs (else hereMs) × the CPU factor: what it takes on Lambda, ms */
  onLambdaMs: number;
  /** the CPU factor used (Lambda's CPU time for the loop over this machine's) */
  factor: number;
  /** what it adds beyond what was measured here: onLambdaMs − hereMs (the wall time here is in the Init measured) */
  ms: number;
  /** onLambdaMs's interval: the running median's bootstrap interval at the factor's range */
  interval?: Interval;
  /** the cell's loading median (time inside require) and module count, for the tables */
  loadingMs: number;
  modules: number;
}

export interface CpuSpeedFactor {
  /** Lambda's CPU ms for the loop over this machine's: how much slower (> 1) Lambda's CPU is */
  factor: number;
  /** the factor at the slowest and fastest of the loop's runs here: its own error */
  range?: Interval;
  /** the real row it came from */
  row: CpuReferenceRow;
  /** this machine's CPU ms for the reference's iterations */
  localMs: number;
}

/** Lambda's CPU speed for a cell's runtime (as timed here) and line (as Lambda's table has it). */
export function cpuSpeedFactor(local: LocalCpuSpeed | undefined, runtime: string, architecture: string): CpuSpeedFactor | undefined {
  if (!local) return undefined;
  const real = lambdaCpuPerIteration(runtime, architecture);
  const localPerIteration = localCpuPerIteration(local);
  if (!real || !(localPerIteration > 0)) return undefined;
  const slowest = Math.max(...local.cpuMs) / local.iterations;
  const fastest = Math.min(...local.cpuMs) / local.iterations;
  return {
    factor: real.msPerIteration / localPerIteration,
    range: { low: real.msPerIteration / slowest, high: real.msPerIteration / fastest },
    row: real.row,
    localMs: localPerIteration * CPU_REFERENCE.iterations,
  };
}

/** A Lambda runtime identifier for a cell: from the version its child reported, else its runtime's name. */
export function runtimeLineOf(summary: Pick<CellSummary, 'runtimeVersion' | 'cell'>): string | undefined {
  // a probe reports its version; under the Runtime Interface Client the cell's runtime names the line (nodejs24.x)
  const major = /v(\d+)\./.exec(summary.runtimeVersion ?? '')?.[1] ?? /^node(?:js)?(\d+)(?:\.x)?$/.exec(summary.cell.runtime)?.[1];
  return major === undefined ? undefined : `nodejs${major}.x`;
}

/**
 * The reference cell measured under a cell's settings: the same dimensions but framework, routes,
 * variant, init mode and its source (the reference is generated, also beside the user's own handlers).
 */
export function referenceSummaryOf(cell: Cell, byKey: Map<string, CellSummary>): CellSummary | undefined {
  for (const variant of [cell.variant, ...VARIANTS]) {
    const found = byKey.get(
      // the reference is generated, lazy (it has nothing to initialise), also beside the user's handlers and eager files
      cellKey(
        makeCell({ ...cell, framework: REFERENCE_FRAMEWORK, variant, routes: 1, source: storedValue('source'), init: storedValue('init') }),
      ),
    );
    if (found) return found;
  }
  return undefined;
}

function nearestRow(table: ReferenceTable, runtime: string, architecture: string, memoryMB: number): ReferenceRow | undefined {
  const exact = referenceRow(table, runtime, architecture, memoryMB);
  if (exact) return exact;
  const rows = table.rows.filter((r) => r.runtime === runtime && r.architecture === architecture);
  return rows.sort((a, b) => Math.abs(a.memoryMB - memoryMB) - Math.abs(b.memoryMB - memoryMB) || b.memoryMB - a.memoryMB)[0];
}

function addition(real: Spread, local: number): Addition {
  return { median: real.median - local, low: real.p25 - local, high: real.p75 - local };
}

/** The code-loading term of a cell beside its local reference: their Init medians and ratio, paired by round. */
function termOf(cell: LambdaSummary, local: LambdaSummary, runtime: string, model: TermModel): CodeLoadingTerm {
  const ratio = pairedRatio({ ...cell.initMs, index: cell.sampleIndex }, { ...local.initMs, index: local.sampleIndex });
  return codeLoadingTerm({ initMs: cell.initMs.median, referenceInitMs: local.initMs.median, ratio, runtime }, model);
}

/** The cell's and the reference's INIT split, when both recorded it. */
function splitsOf(cell: LambdaSummary, local: LambdaSummary): { cell: InitSplitSummary; local: InitSplitSummary } | undefined {
  return cell.split && local.split ? { cell: cell.split, local: local.split } : undefined;
}

/** The code-loading term on the loading part: the cell's Init less its running beside the reference's likewise, paired by round. */
function loadingTermOf(split: { cell: InitSplitSummary; local: InitSplitSummary }, runtime: string, model: TermModel): CodeLoadingTerm {
  const values = (s: InitSplitSummary) => ({ ...s.initLessRunningMs, index: s.index });
  const ratio = pairedRatio(values(split.cell), values(split.local));
  return codeLoadingTerm(
    { initMs: split.cell.initLessRunningMs.median, referenceInitMs: split.local.initLessRunningMs.median, ratio, runtime },
    model,
  );
}

/**
 * The running part at Lambda's CPU speed, with the interval of its median at the factor's range. When
 * the cell and the reference recorded it in CPU time (the kind of time the factor's loop is timed in),
 * that is what the factor scales, and `ms` replaces the wall time measured here (which stays in the
 * Init measured) by it; older runs scale the wall time, as they did.
 */
function runningTermOf(split: { cell: InitSplitSummary; local: InitSplitSummary }, speed: CpuSpeedFactor, seed: string): RunningTerm {
  const hereMs = split.cell.runningMs.median - split.local.runningMs.median;
  const cpu =
    split.cell.runningCpuMs && split.local.runningCpuMs ? { cell: split.cell.runningCpuMs, local: split.local.runningCpuMs } : undefined;
  const scaled = cpu ?? { cell: split.cell.runningMs, local: split.local.runningMs };
  const reference = scaled.local.median;
  const scaledMs = scaled.cell.median - reference;
  const ci = bootstrapMedianCI(scaled.cell.values, `${seed}|running${cpu ? 'Cpu' : ''}`);
  const range = speed.range ?? { low: speed.factor, high: speed.factor };
  const low = Math.min(scaledMs, (ci?.low ?? scaledMs) - reference);
  const high = Math.max(scaledMs, (ci?.high ?? scaledMs) - reference);
  const onLambdaMs = scaledMs * speed.factor;
  return {
    hereMs,
    ...(cpu ? { hereCpuMs: scaledMs } : {}),
    onLambdaMs,
    factor: speed.factor,
    ms: cpu ? onLambdaMs - hereMs : hereMs * (speed.factor - 1),
    interval: { low: low * (low < 0 ? range.high : range.low), high: high * (high < 0 ? range.low : range.high) },
    loadingMs: split.cell.loadingMs.median,
    modules: split.cell.modules.median,
  };
}

/**
 * The split estimate's interval: the loading part's (its ratio's bootstrap interval, widened by the fit's
 * leave-one-out errors, on the real hello world plus the loading excess as Lambda pays it) plus the
 * running part's (its median's interval at the CPU factor's range).
 */
function splitIntervalOf(
  split: { cell: InitSplitSummary; local: InitSplitSummary },
  realHelloWorld: number,
  runtime: string,
  model: TermModel,
  term: CodeLoadingTerm,
  running: RunningTerm,
  estimate: number,
  seed: string,
): Interval | undefined {
  if (!model.errorPct || !running.interval) return undefined;
  const values = (s: InitSplitSummary) => ({ ...s.initLessRunningMs, index: s.index });
  const ratio = ratioInterval(values(split.cell), values(split.local), seed);
  const range = { low: Math.min(ratio?.low ?? term.ratio, term.ratio), high: Math.max(ratio?.high ?? term.ratio, term.ratio) };
  const loading = initInterval((r) => realHelloWorld + onLambdaAt(r, runtime, model), range, model.errorPct);
  return {
    low: Math.min(estimate, loading.low + running.interval.low),
    high: Math.max(estimate, loading.high + running.interval.high),
  };
}

/**
 * The Init estimate's interval (estimate-interval.ts): the estimate at the ends of the bootstrap interval
 * of the cell's ratio to the reference, widened by the fit's leave-one-out errors. `seed` names the cell.
 */
function initIntervalOf(
  cell: LambdaSummary,
  local: LambdaSummary,
  runtime: string,
  model: TermModel,
  estimate: number,
  term: CodeLoadingTerm,
  seed: string,
): Interval | undefined {
  if (!model.errorPct) return undefined;
  const ratio = ratioInterval({ ...cell.initMs, index: cell.sampleIndex }, { ...local.initMs, index: local.sampleIndex }, seed);
  // the estimate less the term's Lambda part at the cell's ratio, plus it at another ratio
  const base = estimate - onLambdaAt(term.ratio, runtime, model);
  const at = (r: number) => base + onLambdaAt(r, runtime, model);
  // the interval holds the cell's own ratio, whatever the resamples gave
  const range = { low: Math.min(ratio?.low ?? term.ratio, term.ratio), high: Math.max(ratio?.high ?? term.ratio, term.ratio) };
  return initInterval(at, range, model.errorPct);
}

/** Duration's interval: the bootstrap interval of the cell's median invocation CPU through the same model. */
function durationInterval(
  cpu: readonly number[],
  estimateAt: (cpu: number) => number,
  estimate: number,
  seed: string,
): Interval | undefined {
  const ci = bootstrapMedianCI(cpu, `${seed}|invokeCpu`);
  if (!ci) return undefined;
  const ends = [estimateAt(ci.low), estimateAt(ci.high)];
  return { low: Math.min(...ends, estimate), high: Math.max(...ends, estimate) };
}

/**
 * The Init estimate of a cell beside its local reference: measured + what Lambda adds + the code-loading
 * term; with INIT's split recorded and the CPU loop timed (issue 41), the term on the loading part and
 * the running part at Lambda's CPU speed.
 */
function initEstimateOf(
  summary: { cell: Cell; lambda: LambdaSummary },
  local: LambdaSummary,
  on: { row: ReferenceRow; runtime: string; speed: CpuSpeedFactor | undefined; codeLoading: TermModel | undefined },
): NonNullable<Calibration['init']> {
  const { row, runtime, speed, codeLoading } = on;
  const initMeasured = summary.lambda.initMs.median;
  const initAddition = addition(row.initMs, local.initMs.median);
  const seed = cellKey(summary.cell);
  const split = codeLoading && speed ? splitsOf(summary.lambda, local) : undefined;
  const running = split && speed ? runningTermOf(split, speed, seed) : undefined;
  const term = codeLoading
    ? split
      ? loadingTermOf(split, runtime, codeLoading)
      : termOf(summary.lambda, local, runtime, codeLoading)
    : undefined;
  const initEstimate = initMeasured + initAddition.median + (term?.ms ?? 0) + (running?.ms ?? 0);
  const interval =
    split && term && running && codeLoading
      ? splitIntervalOf(split, row.initMs.median, runtime, codeLoading, term, running, initEstimate, seed)
      : term && codeLoading
        ? initIntervalOf(summary.lambda, local, runtime, codeLoading, initEstimate, term, seed)
        : undefined;
  const extrapolation = extrapolationOf(term);
  const runningUnvalidated = codeLoading ? runningBeyondOf(running?.onLambdaMs, codeLoading.runningFittedUpToMs ?? 0) : undefined;
  // beyond the evidence on either term, no interval: not the estimate's, not its running part's
  const beyond = isBeyondEvidence({ ...(extrapolation ? { extrapolation } : {}), ...(runningUnvalidated ? { runningUnvalidated } : {}) });
  const { interval: _runningInterval, ...runningWithout } = running ?? {};
  return {
    measured: initMeasured,
    addition: initAddition,
    estimate: initEstimate,
    ...(term ? { codeLoading: term } : {}),
    ...(running ? { running: beyond ? (runningWithout as RunningTerm) : running } : {}),
    ...(interval && !beyond ? { interval } : {}),
    ...(extrapolation ? { extrapolation } : {}),
    ...(runningUnvalidated ? { runningUnvalidated } : {}),
  };
}

/**
 * The calibration of every local Lambda cell (cellKey → calibration). `architecture` is Lambda's
 * name of the run's architecture (x86_64, arm64).
 */
export function calibrate(
  summaries: CellSummary[],
  table: ReferenceTable,
  architecture: string,
  /** meta.json's lambda.cpuSpeed: this machine's CPU for the CPU reference's loop, by the cells' runtime */
  cpuSpeeds: Record<string, LocalCpuSpeed> = {},
  /** the code-loading term's model (calibration/lambda-code-loading.json through termModel); without it, no term */
  codeLoading?: TermModel,
): Map<string, Calibration> {
  const byKey = new Map(summaries.map((s) => [cellKey(s.cell), s]));
  const result = new Map<string, Calibration>();
  for (const summary of summaries) {
    if (!isLocalHandler(summary.cell.target) || !summary.lambda) continue;
    const memoryMB = summary.cell.memory || summary.lambda.memorySizeMB || UNTHROTTLED_REFERENCE_MB;
    const runtime = runtimeLineOf(summary) ?? 'unknown';
    const base: Calibration = { runtime, architecture, memoryMB };
    result.set(cellKey(summary.cell), base);
    const row = nearestRow(table, runtime, architecture, memoryMB);
    const unthrottled = referenceRow(table, runtime, architecture, UNTHROTTLED_REFERENCE_MB);
    if (!row || !unthrottled) {
      base.missing = `the calibration table has no ${runtime} ${architecture} reference`;
      continue;
    }
    base.row = row;
    const local = referenceSummaryOf(summary.cell, byKey)?.lambda;
    if (!local) {
      base.missing = 'the run measured no hello-world reference under these settings (--lambda-reference on)';
      continue;
    }
    const localCpu = local.invokeCpuMs?.median;
    const cellCpu = summary.lambda.invokeCpuMs?.median;
    const speed = cpuSpeedFactor(cpuSpeeds[summary.cell.runtime], runtime, architecture);
    base.init = initEstimateOf({ cell: summary.cell, lambda: summary.lambda }, local, { row, runtime, speed, codeLoading });
    const seed = cellKey(summary.cell);
    base.localReference = { initMs: local.initMs.median, n: local.initMs.n, ...(localCpu !== undefined ? { invokeCpuMs: localCpu } : {}) };
    if (localCpu === undefined || cellCpu === undefined || localCpu <= 0) {
      base.missing = 'no invocation CPU time recorded (a run from before it was measured): Duration has no estimate';
      continue;
    }
    const realCpu = unthrottled.durationMs.median * REFERENCE_CPU_FRACTION;
    const waiting = unthrottled.durationMs.median - realCpu;
    if (speed) base.cpuSpeed = speed;
    // Lambda's CPU time of the cell: the reference's, plus the cell's own beyond it at Lambda's speed;
    // without the loop timed here (an older run), the reference's ratio of Lambda's CPU to this machine's
    const lambdaCpu = speed
      ? (cpu: number) => realCpu + speed.factor * Math.max(0, cpu - localCpu)
      : (cpu: number) => (cpu * realCpu) / localCpu;
    const estimateAt = (cpu: number) =>
      durationAtMemory({ cpuMs: lambdaCpu(cpu), wallMs: lambdaCpu(cpu) + waiting }, memoryMB, CALIBRATED_PERIOD_MS);
    const durationMeasured = summary.lambda.durationMs.median;
    const durationEstimate = estimateAt(cellCpu);
    // the spread of the addition: the cell's own CPU quartiles through the model
    const cpuValues = [...summary.lambda.invokeCpuMs!.values].sort((a, b) => a - b);
    const q = (p: number) => cpuValues[Math.min(cpuValues.length - 1, Math.max(0, Math.round(p * (cpuValues.length - 1))))]!;
    base.duration = {
      measured: durationMeasured,
      addition: {
        median: durationEstimate - durationMeasured,
        low: estimateAt(q(0.25)) - durationMeasured,
        high: estimateAt(q(0.75)) - durationMeasured,
      },
      estimate: durationEstimate,
      tail: { p95: estimateAt(q(0.95)), p99: estimateAt(q(0.99)) },
    };
    const durationRange = durationInterval(summary.lambda.invokeCpuMs!.values, estimateAt, durationEstimate, seed);
    if (durationRange) base.duration.interval = durationRange;
    base.billedEstimate = billedMs(base.init.estimate, durationEstimate);
    if (base.init.interval && base.duration.interval) base.billedInterval = billedInterval(base.init.interval, base.duration.interval);
  }
  return result;
}
