/**
 * `lambda-calibrate` (npm run lambda:calibrate), the use case: a calibration table fitted from the
 * user's own real runs (lambda:run or lambda:import folders) against a local estimate run of the same
 * cells. For each runtime line, architecture and memory size the real runs cover, the hello-world
 * row's Init is moved by the median of (real p50 − estimate p50) over that group's cells, so the
 * estimates of a later report with `--calibration FILE` land where the user's account put them.
 * Each cell's leave-one-out error says how well that carries to a cell the fit did not see (the
 * offset fitted on the group's other cells); a group of one cell has none. Rows no real run covers stay as shipped.
 *
 * The code-loading term's k is refitted too when the real runs hold at least MIN_FIT_FUNCTIONS functions with an
 * excess over the hello world whose local estimate recorded INIT's split (its loading part, issue 41): by
 * analyse/code-loading.ts's least squares (fitPoints), x = the estimator's own excess at the shipped fit's speed
 * (the loading part), y = real p50 − the estimate without the term, each (runtime line, architecture, memory) a
 * group with its own offset. The hello-world offsets are then fitted on the estimates under the new k, and the file
 * records k with its leave-one-out error per function (`codeLoading`), which the estimates made with the file use.
 * With fewer such functions the shipped k stays, and the command says so.
 */
import path from 'node:path';
import { median } from 'simple-statistics';
import type { Calibration } from '../analyse/calibration.ts';
import {
  errorRange,
  fitPoints,
  MIN_FIT_FUNCTIONS,
  roundCoefficient,
  shippedCodeLoading,
  termModel,
  type FitPoint,
} from '../analyse/code-loading.ts';
import { estimatesAgainstReal, type EstimateAgainstReal } from '../analyse/estimate-vs-real.ts';
import type { FittedCodeLoading, ReferenceRow, ReferenceTable, Spread } from '../calibration/lambda-reference.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { displayPath } from '../core/display.ts';
import { UsageError } from '../core/errors.ts';
import { writeFileWhole } from '../store/files.ts';
import { checkOutputFile } from '../store/output-file.ts';
import { loadRun } from '../report/write.ts';
import type { ReportContext } from '../report/contract.ts';

export interface LambdaCalibrateOptions {
  /** a local run with Lambda cells and their hello-world reference (its estimates are refitted) */
  local: string;
  /** real runs of the same cells */
  real: string[];
  out: string;
}

export interface LeaveOneOut {
  cell: string;
  memoryMB: number;
  /** the real p50, and the estimate with the offset fitted without this cell */
  realMs: number;
  predictedMs: number;
  errorPct: number;
}

export interface FittedGroup {
  runtime: string;
  architecture: string;
  memoryMB: number;
  cells: number;
  /** what the fit adds to the shipped row's Init, ms */
  offsetMs: number;
}

export interface CalibrationFile extends ReferenceTable {
  fitted: {
    local: string;
    real: string[];
    groups: FittedGroup[];
    leaveOneOut: LeaveOneOut[];
    /** mean |leave-one-out error| over the cells that have one, %; undefined when none has */
    meanAbsLeaveOneOutPct?: number;
  };
}

const shift = (spread: Spread, by: number): Spread => {
  const at = (v: number) => Math.max(0, Math.round((v + by) * 100) / 100);
  return {
    ...spread,
    median: at(spread.median),
    p25: at(spread.p25),
    p75: at(spread.p75),
    ...(spread.p95 !== undefined ? { p95: at(spread.p95) } : {}),
    ...(spread.p99 !== undefined ? { p99: at(spread.p99) } : {}),
  };
};

const day = (iso: string | undefined) => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : undefined);

interface Matched {
  row: EstimateAgainstReal;
  architecture: string;
  /** the local estimate's record: its code-loading term and whether INIT's split made it */
  calibration?: Calibration;
}

/** Each real run's cells against the local run's estimates for its architecture and runtime line; the days they were measured. */
function matchRuns(local: ReportContext, options: LambdaCalibrateOptions): { matched: Matched[]; days: string[] } {
  const matched: Matched[] = [];
  const days: string[] = [];
  for (const dir of options.real) {
    const real = loadRun(path.resolve(dir));
    const architecture = real.meta?.spec.cost.architecture ?? 'x86_64';
    const chosen = local.calibrations.find((c) => c.architecture === architecture);
    if (!chosen)
      throw new UsageError(
        `${options.local} has no estimate for ${architecture}, the architecture of ${dir}: report it with --arch ${architecture}`,
      );
    const source = real.meta?.spec.source;
    const runtime = source?.kind === 'imported' ? source.lambdaRuntime : undefined;
    const rows = estimatesAgainstReal(local.summaries, chosen.calibration, real.summaries, runtime);
    if (rows.length === 0)
      throw new UsageError(`${dir} shares no Lambda cell (framework, routes, variant, memory, runtime) with ${options.local}`);
    for (const row of rows) {
      const calibration = chosen.calibration.get(cellKey(row.cell));
      matched.push({ row, architecture, ...(calibration ? { calibration } : {}) });
    }
    for (const when of [real.meta?.startedAt, real.meta?.finishedAt]) if (day(when)) days.push(day(when)!);
  }
  return { matched, days };
}

/**
 * Each cell of one group predicted with the offset (median real − estimate) of the group's other
 * cells, and the error of that prediction; none for a group of one cell.
 */
export function leaveOneOutOf(rows: readonly Pick<EstimateAgainstReal, 'cell' | 'memoryMB' | 'estimate' | 'real'>[]): LeaveOneOut[] {
  if (rows.length < 2) return [];
  const offsets = rows.map((row) => row.real.p50 - row.estimate.p50);
  return rows.map((row, i) => {
    const predictedMs = row.estimate.p50 + median(offsets.filter((_, j) => j !== i));
    return {
      cell: cellLabel(row.cell),
      memoryMB: row.memoryMB,
      realMs: row.real.p50,
      predictedMs: Math.round(predictedMs * 100) / 100,
      errorPct: Math.round(((predictedMs - row.real.p50) / row.real.p50) * 1000) / 10,
    };
  });
}

/** A point of the k fit: a cell whose estimate has the split's loading term, and what it names. */
interface KPoint extends FitPoint {
  function: string;
  /** the shipped k the estimate was made with */
  shippedK: number;
  /** the estimate's p50 and the real one */
  estimateMs: number;
  realMs: number;
}

function kPoints(matched: readonly Matched[]): KPoint[] {
  return matched.flatMap(({ row, architecture, calibration }) => {
    const term = calibration?.init?.codeLoading;
    // the loading part only: a cell whose estimate had no INIT split would fit k on CPU work too (issue 41)
    if (!term || !calibration.init?.running) return [];
    const x = Math.max(0, term.atFitSpeedMs);
    return [
      {
        function: cellLabel(row.cell),
        group: `${row.cell.runtime}|${architecture}|${row.memoryMB}`,
        x,
        y: row.real.p50 - row.estimate.p50 + term.coefficient * x,
        shippedK: term.coefficient,
        estimateMs: row.estimate.p50,
        realMs: row.real.p50,
      },
    ];
  });
}

/**
 * The errors, in % to a tenth, of one function's points predicted by k and its group's offset fitted on the other
 * functions; undefined when the others cannot be fitted.
 */
function heldOutErrors(points: readonly KPoint[], held: string): number[] | undefined {
  let fit: ReturnType<typeof fitPoints>;
  try {
    fit = fitPoints(points.filter((p) => p.function !== held));
  } catch {
    return undefined;
  }
  const errors: number[] = [];
  for (const p of points.filter((q) => q.function === held)) {
    const offset = fit.offsets.get(p.group);
    if (offset === undefined) continue;
    const predicted = p.estimateMs - p.shippedK * p.x + offset + fit.coefficient * p.x;
    errors.push(Math.round(((predicted - p.realMs) / p.realMs) * 1000) / 10);
  }
  return errors;
}

/** Leave-one-out of k: every point of one function predicted by k and its group's offset fitted on the other functions. */
function kLeaveOneOut(points: readonly KPoint[]): Record<string, [number, number]> {
  const ranges: Record<string, [number, number]> = {};
  for (const held of new Set(points.map((p) => p.function))) {
    for (const e of heldOutErrors(points, held) ?? []) {
      const [low, high] = ranges[held] ?? [e, e];
      ranges[held] = [Math.min(low, e), Math.max(high, e)];
    }
  }
  return ranges;
}

/**
 * The coverage of the refit's leave-one-out error range, checked as the shipped fit's is (analyse/code-loading.ts
 * looCoverage): each function held out, the range of the other functions' own leave-one-out errors against the
 * held-out points' errors under the fit on the others. Undefined when no function can be held out that way.
 */
function kCoverage(points: readonly KPoint[]): { n: number; within: number } | undefined {
  let n = 0;
  let within = 0;
  for (const held of new Set(points.map((p) => p.function))) {
    const range = errorRange(kLeaveOneOut(points.filter((p) => p.function !== held)));
    if (!range) continue;
    for (const e of heldOutErrors(points, held) ?? []) {
      n += 1;
      if (e >= range[0] && e <= range[1]) within += 1;
    }
  }
  return n > 0 ? { n, within } : undefined;
}

/** "n=20 leave-one-out, 65 % of held-out errors within (13 of 20)": the coverage the Init interval states. */
function coverageLine(coverage: { n: number; within: number } | undefined): string {
  if (!coverage) return 'not checked (no function could be held out with a range built on the others)';
  return (
    `n=${coverage.n} leave-one-out, ${Math.round((100 * coverage.within) / coverage.n)} % of held-out errors within ` +
    `(${coverage.within} of ${coverage.n})`
  );
}

/** k refitted from the real runs, or undefined (and why, printed) with too few functions with an excess and the split. */
function refitCoefficient(matched: readonly Matched[], print: (line: string) => void): FittedCodeLoading | undefined {
  const points = kPoints(matched);
  const shipped = points[0]?.shippedK ?? matched.find((m) => m.calibration?.init?.codeLoading)?.calibration?.init?.codeLoading?.coefficient;
  const functions = new Set(points.filter((p) => p.x > 0).map((p) => p.function));
  const keep = (why: string): undefined => {
    print(`code-loading term: ${why}: the shipped k${shipped !== undefined ? ` (${shipped})` : ''} kept`);
  };
  if (functions.size < MIN_FIT_FUNCTIONS) {
    keep(
      `${functions.size} function(s) with an excess over the hello world and INIT's split in the local run; ` +
        `a fit takes ${MIN_FIT_FUNCTIONS} (measure the local run with generated Lambda cells of more sizes)`,
    );
    return undefined;
  }
  let fit: ReturnType<typeof fitPoints>;
  try {
    fit = fitPoints(points);
  } catch {
    keep('no group of cells whose excesses differ (each memory size needs two or more functions)');
    return undefined;
  }
  return {
    coefficient: roundCoefficient(fit.coefficient),
    shippedCoefficient: shipped ?? fit.coefficient,
    functions: functions.size,
    points: points.length,
    fittedUpToMs: Math.round(Math.max(...points.map((p) => p.x)) * 100) / 100,
    looErrorPct: kLeaveOneOut(points),
  };
}

/** The Init interval's coverage, printed with the calibration: the refit's when k was refitted, else the shipped fit's. */
function coveragePrinted(matched: readonly Matched[], refitted: boolean): string {
  if (refitted) return `Init interval: the refitted k's error range, ${coverageLine(kCoverage(kPoints(matched)))}`;
  const shipped = termModel(shippedCodeLoading()).coverage;
  return `Init interval: the shipped fit's error range on its public real Init figures, ${coverageLine(shipped)}`;
}

/** The matched rows with their estimates under the refitted k (the term's x times the change of k). */
function underK(matched: readonly Matched[], k: number): Matched[] {
  return matched.map((m) => {
    const term = m.calibration?.init?.running ? m.calibration.init.codeLoading : undefined;
    if (!term) return m;
    const by = (k - term.coefficient) * Math.max(0, term.atFitSpeedMs);
    return { ...m, row: { ...m.row, estimate: { ...m.row.estimate, p50: m.row.estimate.p50 + by } } };
  });
}

function coefficientLine(fitted: FittedCodeLoading): string {
  const loo = Object.values(fitted.looErrorPct);
  const range = loo.length ? `, leave-one-out ${Math.min(...loo.map((r) => r[0]))} to ${Math.max(...loo.map((r) => r[1]))} %` : '';
  return `code-loading term: k = ${fitted.coefficient} from ${fitted.functions} function(s) (shipped ${fitted.shippedCoefficient})${range}`;
}

/** Fit, write the file, and return it. */
export function calibrateLambda(options: LambdaCalibrateOptions, print: (line: string) => void): CalibrationFile {
  if (options.real.length === 0) throw new UsageError('lambda:calibrate needs one or more real runs');
  checkOutputFile('--out', options.out, [options.local, ...options.real]);
  const local = loadRun(path.resolve(options.local));
  if (!local.reference || local.calibrations.length === 0) {
    throw new UsageError(`${options.local} has no Lambda estimate to fit (no local Lambda cell with its hello-world reference)`);
  }
  const runs = matchRuns(local, options);
  const { days } = runs;
  const codeLoading = refitCoefficient(runs.matched, print);
  const matched = codeLoading ? underK(runs.matched, codeLoading.coefficient) : runs.matched;
  const groups = new Map<string, Matched[]>();
  for (const m of matched) {
    const key = `${m.row.cell.runtime}|${m.architecture}|${m.row.memoryMB}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const shipped = local.reference;
  const rows: ReferenceRow[] = shipped.rows.map((r) => ({ ...r }));
  const fittedGroups: FittedGroup[] = [];
  const leaveOneOut: LeaveOneOut[] = [];
  for (const members of groups.values()) {
    const { row: first, architecture } = members[0]!;
    const runtime = first.cell.runtime;
    const offsets = members.map((m) => m.row.real.p50 - m.row.estimate.p50);
    const offsetMs = median(offsets);
    const index = rows.findIndex((r) => r.runtime === runtime && r.architecture === architecture && r.memoryMB === first.memoryMB);
    const base = index >= 0 ? rows[index]! : undefined;
    if (!base) {
      print(`note: the shipped table has no ${runtime} ${architecture} ${first.memoryMB} MB row: not fitted`);
      continue;
    }
    rows[index] = { ...base, initMs: { ...shift(base.initMs, offsetMs), n: members.reduce((n, m) => n + m.row.real.n, 0) } };
    fittedGroups.push({
      runtime,
      architecture,
      memoryMB: first.memoryMB,
      cells: members.length,
      offsetMs: Math.round(offsetMs * 100) / 100,
    });
    leaveOneOut.push(...leaveOneOutOf(members.map((m) => m.row)));
  }
  const sorted = days.sort();
  const meanAbs = leaveOneOut.length ? leaveOneOut.reduce((sum, l) => sum + Math.abs(l.errorPct), 0) / leaveOneOut.length : undefined;
  const file: CalibrationFile = {
    source:
      `fitted by lambda:calibrate from real run(s) ${options.real.map((dir) => path.basename(path.resolve(dir))).join(', ')} ` +
      `against ${path.basename(path.resolve(options.local))}, on ${shipped.source}` +
      // every estimate names its calibration's source: it says the term is not the shipped one
      (codeLoading ? `; code-loading k ${codeLoading.coefficient} refitted (shipped ${codeLoading.shippedCoefficient})` : ''),
    from: sorted[0] ?? shipped.from,
    to: sorted[sorted.length - 1] ?? shipped.to,
    handler: shipped.handler,
    notes:
      `${shipped.notes}; Init of ${fittedGroups.length} row(s) moved by the median real − estimate of their cells, ` +
      (codeLoading
        ? `the code-loading term's k refitted from ${codeLoading.functions} function(s): ${codeLoading.coefficient} ` +
          `(shipped ${codeLoading.shippedCoefficient})`
        : 'the code-loading term shipped'),
    rows,
    ...(codeLoading ? { codeLoading } : {}),
    fitted: {
      local: displayPath(path.resolve(options.local)),
      real: options.real.map((dir) => displayPath(path.resolve(dir))),
      groups: fittedGroups,
      leaveOneOut,
      ...(meanAbs !== undefined ? { meanAbsLeaveOneOutPct: Math.round(meanAbs * 10) / 10 } : {}),
    },
  };
  writeFileWhole(options.out, `${JSON.stringify(file, null, 2)}\n`);
  for (const g of fittedGroups)
    print(`${g.runtime} ${g.architecture} ${g.memoryMB} MB: ${g.cells} cell(s), Init offset ${g.offsetMs >= 0 ? '+' : ''}${g.offsetMs} ms`);
  if (codeLoading) print(coefficientLine(codeLoading));
  print(coveragePrinted(runs.matched, codeLoading !== undefined));
  print(
    meanAbs === undefined
      ? 'leave-one-out error: none (every group has one cell; measure more cells per memory size)'
      : `leave-one-out error: mean |error| ${file.fitted.meanAbsLeaveOneOutPct} % over ${leaveOneOut.length} cells`,
  );
  return file;
}
