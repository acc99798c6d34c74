/**
 * The code-loading term of the Init estimate (issue 27). The calibration adds to a cell's local Init
 * what Lambda adds to a hello world; a hello world loads almost no code, so that constant cannot
 * carry what a new sandbox pays for the code an app loads beyond it (read from Lambda's storage,
 * compiled on its CPU). The term does, from what every local run measures: the cell's excess over
 * the hello-world reference measured beside it, taken as a ratio so that it does not depend on how
 * fast the machine is (a laptop, a CI runner, this machine on a slow afternoon):
 *
 *   ratio      = the cell's Init here / the reference's, paired round by round (median of the ratios)
 *   excess     = (ratio − 1) × H, H = the hello world's Init here on the day k was fitted (its line)
 *   estimate   = the real hello world + excess + k × max(0, excess)
 *
 * k is fitted by least squares on public real Init Durations (calibration/lambda-code-loading.json): for a
 * row with a real hello world of the same weeks, real − (that hello world + the excess) = k × the
 * excess; rows of apps whose real hello world is unknown (behind the Lambda Web Adapter) share an
 * offset per group, so only their differences inform k. Leave-one-out holds out every row of one
 * function, fits on the rest and predicts it.
 *
 * Rows that carry INIT's split measured here (`local.loading`, issue 41) are fitted on their loading
 * part: the row's Init of its first measurement less the running part beyond the reference's that the
 * split measured, over the same reference, and the running part at Lambda's CPU speed is taken out of
 * the real figure before k is fitted: real − (hello world + loading excess + running on Lambda) = k ×
 * the loading excess. The split's own loading ratio is not what the fit reads: re-measured on another
 * day, the hello world had a fixed cost the apps had too (149–163 ms against 125–133, the apps' excess
 * unchanged in ms), so the ratio fell and k rose to fill the gap; the running part's milliseconds,
 * a difference of two figures measured together, carry no such cost. Rows without the split (an offset
 * group's server apps, older data) keep the whole Init. H stays the hello world of the rows' first
 * measurement (helloWorldAtFit).
 */
import { mean, median } from 'simple-statistics';
import { readCodeLoadingData, type CodeLoadingData, type CodeLoadingRow } from '../calibration/lambda-code-loading.ts';
import type { FittedCodeLoading } from '../calibration/lambda-reference.ts';

/** What the term added to one estimate. */
export interface CodeLoadingTerm {
  /**
   * what the estimate adds beyond "measured here + what Lambda adds to a hello world", ms: the excess
   * as Lambda pays it (excess + k × max(0, excess), at the fit's speed) minus the excess measured here
   * (which the addition already carries)
   */
  ms: number;
  /** the cell's Init − the local reference's, medians, ms */
  excessMs: number;
  /** the cell's Init over the reference's here (paired round by round when the samples allow) */
  ratio: number;
  /** (ratio − 1) × helloWorldMs: the excess at the speed the fit was measured at, ms */
  atFitSpeedMs: number;
  /** H: the hello world's Init here when k was fitted, on the cell's runtime line (else every line's median), ms */
  helloWorldMs: number;
  coefficient: number;
  /** the largest excess (at the fit's speed) of a fitted row: a larger one is extrapolated */
  fittedUpToMs: number;
}

/** H: the hello world's Init here when k was fitted, by runtime line, ms. */
type HelloWorld = (runtime: string) => number;

/** What the term needs from the fit: k, H per runtime line, and how far the fitted excesses reach. */
export interface TermModel {
  coefficient: number;
  helloWorldMs: HelloWorld;
  fittedUpToMs: number;
  /** [e_min, e_max]: the leave-one-out relative errors' range over every function, % (the interval's residuals) */
  errorPct?: [number, number];
  /** how often that range held for a function it was not built on (looCoverage); absent for a refitted k */
  coverage?: LooCoverage;
  /** the largest running part (on Lambda) of a fitted row with INIT's split: beyond it, unvalidated (0, or absent, when none has it) */
  runningFittedUpToMs?: number;
}

/**
 * The coverage the Init interval's error range has, checked leave-one-out over the calibration functions:
 * each function held out, k fitted on the others and the error range taken from the others' own
 * leave-one-out errors (as the shipped range is taken from all of them); `within` of the `n` held-out
 * rows fell inside the range built without their function. The interval states this, not a nominal 95 %.
 */
export interface LooCoverage {
  /** the rows (real Init figures) held out */
  n: number;
  /** the functions they belong to */
  functions: number;
  /** the held-out rows whose error lay within the range built without their function */
  within: number;
}

type RowWithHelloWorld = CodeLoadingRow & {
  reference: NonNullable<CodeLoadingRow['reference']>;
  local: CodeLoadingRow['local'] & { referenceInitMs: number };
};

/** A row with a real hello world of its weeks and the local one measured beside it (not an offset group's). */
function withHelloWorld(row: CodeLoadingRow): row is RowWithHelloWorld {
  return row.reference !== undefined && row.local.referenceInitMs !== undefined;
}

/**
 * What a row with a hello world gives the fit: with INIT's split measured (`local.loading`, issue 41),
 * the loading part (the row's Init less the running part beyond the reference's, as a ratio to the
 * reference's Init of the same measurement) and the running part at Lambda's CPU speed, which the
 * estimate adds as it is; without it, the whole Init's ratio and nothing apart.
 */
function partsOf(row: RowWithHelloWorld): { ratio: number; runningOnLambdaMs: number } {
  const loading = row.local.loading;
  if (loading) {
    const ratio = (row.local.initMs - loading.runningMs) / row.local.referenceInitMs;
    return { ratio, runningOnLambdaMs: loading.runningOnLambdaMs };
  }
  return { ratio: row.local.initMs / row.local.referenceInitMs, runningOnLambdaMs: 0 };
}

/**
 * H of the rows: per runtime line, the median of the local hello world's Init measured beside them
 * (the machine's speed when k was fitted); for a line without rows, every row's median. Rows with the
 * split keep the H of their first measurement (`local.referenceInitMs`): a split re-measured on another
 * day enters as a ratio, which is speed-free, and the offset groups' rows are milliseconds of that
 * first day, so one H keeps both on one scale.
 */
export function helloWorldAtFit(rows: readonly CodeLoadingRow[]): HelloWorld {
  const referenced = rows.filter(withHelloWorld);
  if (referenced.length === 0) throw new Error('the code-loading data has no row with a local hello world');
  const all = median(referenced.map((r) => r.local.referenceInitMs));
  const byLine = new Map<string, number>();
  for (const line of new Set(referenced.map((r) => r.runtime)))
    byLine.set(line, median(referenced.filter((r) => r.runtime === line).map((r) => r.local.referenceInitMs)));
  return (runtime) => byLine.get(runtime) ?? all;
}

/** A row's excess (its loading part's, with the split) over its local hello world at the fit's speed (rows with a local reference only). */
function rowExcess(row: RowWithHelloWorld, h: HelloWorld): number {
  return (partsOf(row).ratio - 1) * h(row.runtime);
}

/** The model the report applies: the shipped k, H from the rows, and the largest fitted excess. */
export function termModel(data: CodeLoadingData): TermModel {
  const h = helloWorldAtFit(data.rows);
  const excesses = data.rows.filter(withHelloWorld).map((r) => rowExcess(r, h));
  const errors = errorRange(data.fit.looErrorPct);
  const coverage = errors ? looCoverage(data.rows) : undefined;
  return {
    coefficient: data.fit.coefficient,
    helloWorldMs: h,
    fittedUpToMs: Math.max(0, ...excesses),
    runningFittedUpToMs: Math.max(0, ...data.rows.map((r) => r.local.loading?.runningOnLambdaMs ?? 0)),
    ...(errors ? { errorPct: errors } : {}),
    ...(coverage ? { coverage } : {}),
  };
}

/**
 * The leave-one-out check of the error range (LooCoverage): per function held out, the range of the
 * other functions' leave-one-out errors (each fitted without the held-out function too) against the
 * held-out rows' errors under the fit on the others. Undefined when a function cannot be held out
 * (an offset group left with one function) or fewer than three functions remain.
 */
export function looCoverage(rows: readonly CodeLoadingRow[]): LooCoverage | undefined {
  const functions = [...new Set(rows.map((r) => r.function))];
  if (functions.length < MIN_FIT_FUNCTIONS + 1) return undefined;
  const helloWorld = helloWorldAtFit(rows);
  let within = 0;
  let n = 0;
  try {
    for (const held of functions) {
      const rest = rows.filter((r) => r.function !== held);
      const range = errorRange(looErrorRanges(leaveOneOut(rest)));
      const fit = fitCodeLoading(rest, undefined, helloWorld);
      for (const row of rows.filter((r) => r.function === held)) {
        const predicted = predictRow(row, fit);
        if (predicted === undefined || !range) return undefined;
        const e = Math.round(errorPct(predicted, row.real.initMs) * 10) / 10;
        n += 1;
        if (e >= range[0] && e <= range[1]) within += 1;
      }
    }
  } catch {
    return undefined;
  }
  return { n, functions: functions.length, within };
}

/**
 * The model with a calibration table's refitted k (lambda:calibrate from the user's real runs), when it has one: its k,
 * its leave-one-out range, and the larger of the two fitted reaches; H stays the shipped fit's (the refit's x is the
 * estimator's own excess at that speed).
 */
export function withFittedCoefficient(model: TermModel, fitted: FittedCodeLoading | undefined): TermModel {
  if (!fitted) return model;
  const errors = errorRange(fitted.looErrorPct);
  // the shipped range's coverage was checked on the shipped functions, not on the refit's
  const { errorPct: _shipped, coverage: _checked, ...rest } = model;
  return {
    ...rest,
    coefficient: fitted.coefficient,
    fittedUpToMs: Math.max(model.fittedUpToMs, fitted.fittedUpToMs),
    ...(errors ? { errorPct: errors } : {}),
  };
}

/** [e_min, e_max]: the range of the leave-one-out relative errors of every function (looErrorPct), %. */
export function errorRange(looErrorPct: Record<string, readonly [number, number]>): [number, number] | undefined {
  const ranges = Object.values(looErrorPct);
  if (ranges.length === 0) return undefined;
  return [Math.min(...ranges.map((r) => r[0])), Math.max(...ranges.map((r) => r[1]))];
}

/** The ratios of a cell's values to the reference's of the same round, or undefined without rounds to pair. */
export function pairedRatios(
  cell: { values: readonly number[]; index?: readonly number[] },
  reference: { values: readonly number[]; index?: readonly number[] },
): number[] | undefined {
  if (!cell.index || !reference.index || cell.index.length !== cell.values.length || reference.index.length !== reference.values.length)
    return undefined;
  const byRound = new Map(reference.index.map((round, i) => [round, reference.values[i]!]));
  const ratios = cell.index.flatMap((round, i) => {
    const ref = byRound.get(round);
    return ref !== undefined && ref > 0 ? [cell.values[i]! / ref] : [];
  });
  return ratios.length > 0 ? ratios : undefined;
}

/**
 * The median of the ratios of a cell's Init to the reference's over the rounds both have (interleaved
 * runs measure round i of every cell back to back, so the machine's drift cancels); the ratio of the
 * medians when the samples carry no round (an older summary) or share none.
 */
export function pairedRatio(
  cell: { values: readonly number[]; median: number; index?: readonly number[] },
  reference: { values: readonly number[]; median: number; index?: readonly number[] },
): number {
  const ratios = pairedRatios(cell, reference);
  return ratios ? median(ratios) : cell.median / reference.median;
}

/** The excess as Lambda pays it at a ratio to the hello world: (ratio − 1) × H, times 1 + k when positive; increasing in the ratio. */
export function onLambdaAt(ratio: number, runtime: string, model: TermModel): number {
  const atFitSpeedMs = (ratio - 1) * model.helloWorldMs(runtime);
  return atFitSpeedMs + model.coefficient * Math.max(0, atFitSpeedMs);
}

/** The term for a cell whose local Init is `initMs` beside a local reference of `referenceInitMs`, their ratio `ratio`. */
export function codeLoadingTerm(
  measured: { initMs: number; referenceInitMs: number; ratio: number; runtime: string },
  model: TermModel,
): CodeLoadingTerm {
  const excessMs = measured.initMs - measured.referenceInitMs;
  const helloWorldMs = model.helloWorldMs(measured.runtime);
  const atFitSpeedMs = (measured.ratio - 1) * helloWorldMs;
  return {
    ms: onLambdaAt(measured.ratio, measured.runtime, model) - excessMs,
    excessMs,
    ratio: measured.ratio,
    atFitSpeedMs,
    helloWorldMs,
    coefficient: model.coefficient,
    fittedUpToMs: model.fittedUpToMs,
  };
}

export interface Fit {
  coefficient: number;
  /** the fitted offset of every group of rows without a real hello world, ms */
  offsets: Map<string, number>;
  /** H per runtime line: what turns a row's ratio into its excess */
  helloWorld: HelloWorld;
}

/** x: what k multiplies; y: what is left of the real figure once the term is taken out (before any group offset). */
function xy(row: CodeLoadingRow, h: HelloWorld): { x: number; y: number } {
  if (withHelloWorld(row)) {
    const excess = rowExcess(row, h);
    return { x: Math.max(0, excess), y: row.real.initMs - row.reference.initMs - excess - partsOf(row).runningOnLambdaMs };
  }
  return { x: row.local.initMs, y: row.real.initMs - row.local.initMs };
}

/**
 * Least squares for k and the group offsets: within each group x and y are centred on the group's
 * means (its offset takes the rest), the other rows as they are. `fixed` skips the fit of k (0: the
 * estimate without the term, its offsets fitted alone). `helloWorld` (H) is a property of the day the
 * rows were measured, not fitted: leave-one-out passes the one of every row.
 */
export function fitCodeLoading(rows: readonly CodeLoadingRow[], fixed?: number, helloWorld: HelloWorld = helloWorldAtFit(rows)): Fit {
  const { coefficient, offsets } = fitPoints(
    rows.map((row) => ({ group: row.offsetGroup ?? '', ...xy(row, helloWorld) })),
    fixed,
  );
  return { coefficient, offsets, helloWorld };
}

/** A point of the fit: y = k × x (+ its group's offset, for a group other than ''). */
export interface FitPoint {
  group: string;
  x: number;
  y: number;
}

/** The fewest functions with an excess over the hello world a fit of k takes (lambda:calibrate keeps the shipped k below it). */
export const MIN_FIT_FUNCTIONS = 3;

/**
 * Least squares for k and the group offsets (fitCodeLoading's, and lambda:calibrate's on the user's real
 * runs): within each group other than '' x and y are centred on the group's means (its offset takes the
 * rest); the points of '' as they are. `fixed` skips the fit of k.
 */
export function fitPoints(points: readonly FitPoint[], fixed?: number): { coefficient: number; offsets: Map<string, number> } {
  let sxy = 0;
  let sxx = 0;
  const byGroup = new Map<string, FitPoint[]>();
  for (const p of points) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  for (const [group, members] of byGroup) {
    const mx = group ? mean(members.map((p) => p.x)) : 0;
    const my = group ? mean(members.map((p) => p.y)) : 0;
    for (const p of members) {
      sxy += (p.x - mx) * (p.y - my);
      sxx += (p.x - mx) ** 2;
    }
  }
  if (fixed === undefined && !(sxx > 0)) throw new Error('the code-loading fit has no row whose local excess varies');
  const coefficient = fixed ?? sxy / sxx;
  const offsets = new Map<string, number>();
  for (const [group, members] of byGroup) {
    if (group) offsets.set(group, mean(members.map((p) => p.y - coefficient * p.x)));
  }
  return { coefficient, offsets };
}

/** A row's estimate under a fit; undefined for a row of a group the fit has no offset for. */
export function predictRow(row: CodeLoadingRow, fit: Fit): number | undefined {
  const { x } = xy(row, fit.helloWorld);
  if (withHelloWorld(row)) {
    return row.reference.initMs + rowExcess(row, fit.helloWorld) + partsOf(row).runningOnLambdaMs + fit.coefficient * x;
  }
  const offset = fit.offsets.get(row.offsetGroup ?? '');
  return offset === undefined ? undefined : offset + row.local.initMs + fit.coefficient * x;
}

export interface LooRow {
  row: CodeLoadingRow;
  /** the estimate without the term (k = 0; a group's offset fitted alone on the other functions), ms */
  before: number;
  /** the estimate with the term fitted on the other functions, ms */
  now: number;
  /** k fitted without this row's function */
  coefficient: number;
  beforeErrorPct: number;
  nowErrorPct: number;
}

const errorPct = (estimate: number, real: number) => (100 * (estimate - real)) / real;

/** Leave-one-out: every row of one function held out, the fit on the rest predicts it. */
export function leaveOneOut(rows: readonly CodeLoadingRow[]): LooRow[] {
  const functions = [...new Set(rows.map((r) => r.function))];
  const helloWorld = helloWorldAtFit(rows);
  return functions.flatMap((held) => {
    const rest = rows.filter((r) => r.function !== held);
    const fit = fitCodeLoading(rest, undefined, helloWorld);
    const without = fitCodeLoading(rest, 0, helloWorld);
    return rows
      .filter((r) => r.function === held)
      .map((row) => {
        const now = predictRow(row, fit);
        const before = predictRow(row, without);
        if (now === undefined || before === undefined)
          throw new Error(`${held}: no other function of its group ${row.offsetGroup ?? ''} is left to fit the group's offset`);
        return {
          row,
          before,
          now,
          coefficient: fit.coefficient,
          beforeErrorPct: errorPct(before, row.real.initMs),
          nowErrorPct: errorPct(now, row.real.initMs),
        };
      });
  });
}

/** Per function, the smallest and largest LOO error of its rows, %, rounded to 0.1. */
export function looErrorRanges(loo: readonly LooRow[]): Record<string, [number, number]> {
  const ranges: Record<string, [number, number]> = {};
  for (const { row, nowErrorPct } of loo) {
    const e = Math.round(nowErrorPct * 10) / 10;
    const [low, high] = ranges[row.function] ?? [e, e];
    ranges[row.function] = [Math.min(low, e), Math.max(high, e)];
  }
  return ranges;
}

/** The coefficient as shipped: three decimals. */
export function roundCoefficient(k: number): number {
  return Math.round(k * 1000) / 1000;
}

let shipped: CodeLoadingData | undefined;

/** The shipped data, read once. */
export function shippedCodeLoading(): CodeLoadingData {
  shipped ??= readCodeLoadingData();
  return shipped;
}
