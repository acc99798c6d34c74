/**
 * The code-loading term of the Init estimate (issue 27). The calibration adds to a cell's local Init
 * what Lambda adds to a hello world; a hello world loads almost no code, so that constant cannot
 * carry what a new sandbox pays for the code an app loads beyond it (read from Lambda's storage,
 * compiled on its CPU). The term does, from what every local run measures:
 *
 *   term = k × max(0, the cell's local Init − the local hello-world reference's Init)
 *
 * k is fitted by least squares on public real Init Durations (core/lambda-code-loading.json): for a
 * row with a real hello world of the same weeks, real − (that hello world + the local excess) = k ×
 * the local excess; rows of apps whose real hello world is unknown (behind the Lambda Web Adapter)
 * share an offset per group, so only their differences inform k. Leave-one-out holds out every row
 * of one function, fits on the rest and predicts it.
 */
import { readCodeLoadingData, type CodeLoadingData, type CodeLoadingRow } from '../core/lambda-code-loading.ts';

/** What the term added to one estimate. */
export interface CodeLoadingTerm {
  /** the term, ms */
  ms: number;
  /** the local excess it scales: the cell's Init − the local reference's, ms (negative: noise, the term is 0) */
  excessMs: number;
  coefficient: number;
}

/** The term for a cell whose local Init is `initMs` beside a local reference of `referenceInitMs`. */
export function codeLoadingTerm(initMs: number, referenceInitMs: number, coefficient: number): CodeLoadingTerm {
  const excessMs = initMs - referenceInitMs;
  return { ms: coefficient * Math.max(0, excessMs), excessMs, coefficient };
}

export interface Fit {
  coefficient: number;
  /** the fitted offset of every group of rows without a real hello world, ms */
  offsets: Map<string, number>;
}

/** x: what k multiplies; y: what is left of the real figure once the term is taken out (before any group offset). */
function xy(row: CodeLoadingRow): { x: number; y: number } {
  if (row.reference && row.local.referenceInitMs !== undefined) {
    const excess = row.local.initMs - row.local.referenceInitMs;
    return { x: Math.max(0, excess), y: row.real.initMs - row.reference.initMs - excess };
  }
  return { x: row.local.initMs, y: row.real.initMs - row.local.initMs };
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Rows by their offset group ('' for the rows with a real hello world). */
function groups(rows: readonly CodeLoadingRow[]): Map<string, CodeLoadingRow[]> {
  const byGroup = new Map<string, CodeLoadingRow[]>();
  for (const row of rows) {
    const key = row.offsetGroup ?? '';
    byGroup.set(key, [...(byGroup.get(key) ?? []), row]);
  }
  return byGroup;
}

/**
 * Least squares for k and the group offsets: within each group x and y are centred on the group's
 * means (its offset takes the rest), the other rows as they are. `fixed` skips the fit of k (0: the
 * estimate without the term, its offsets fitted alone).
 */
export function fitCodeLoading(rows: readonly CodeLoadingRow[], fixed?: number): Fit {
  let sxy = 0;
  let sxx = 0;
  const byGroup = groups(rows);
  for (const [group, members] of byGroup) {
    const points = members.map(xy);
    const mx = group ? mean(points.map((p) => p.x)) : 0;
    const my = group ? mean(points.map((p) => p.y)) : 0;
    for (const p of points) {
      sxy += (p.x - mx) * (p.y - my);
      sxx += (p.x - mx) ** 2;
    }
  }
  if (fixed === undefined && !(sxx > 0)) throw new Error('the code-loading fit has no row whose local excess varies');
  const coefficient = fixed ?? sxy / sxx;
  const offsets = new Map<string, number>();
  for (const [group, members] of byGroup) {
    if (group) offsets.set(group, mean(members.map(xy).map((p) => p.y - coefficient * p.x)));
  }
  return { coefficient, offsets };
}

/** A row's estimate under a fit; undefined for a row of a group the fit has no offset for. */
export function predictRow(row: CodeLoadingRow, fit: Fit): number | undefined {
  const { x } = xy(row);
  if (row.reference && row.local.referenceInitMs !== undefined) {
    return row.reference.initMs + row.local.initMs - row.local.referenceInitMs + fit.coefficient * x;
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
  return functions.flatMap((held) => {
    const rest = rows.filter((r) => r.function !== held);
    const fit = fitCodeLoading(rest);
    const without = fitCodeLoading(rest, 0);
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
