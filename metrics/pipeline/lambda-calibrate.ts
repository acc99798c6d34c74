/**
 * `lambda-calibrate` (npm run lambda:calibrate), the use case: a calibration table fitted from the
 * user's own real runs (lambda:run or lambda:import folders) against a local estimate run of the same
 * cells. For each runtime line, architecture and memory size the real runs cover, the hello-world
 * row's Init is moved by the median of (real p50 − estimate p50) over that group's cells, so the
 * estimates of a later report with `--calibration FILE` land where the user's account put them.
 * Each cell's leave-one-out error says how well that carries to a cell the fit did not see (the
 * offset fitted on the group's other cells); a group of one cell has none. The code-loading term is
 * the shipped one (the file says so). Rows no real run covers stay as shipped.
 */
import path from 'node:path';
import { median } from 'simple-statistics';
import { estimatesAgainstReal, type EstimateAgainstReal } from '../analyse/estimate-vs-real.ts';
import type { ReferenceRow, ReferenceTable, Spread } from '../calibration/lambda-reference.ts';
import { cellLabel } from '../core/cell.ts';
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
    for (const row of rows) matched.push({ row, architecture });
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

/** Fit, write the file, and return it. */
export function calibrateLambda(options: LambdaCalibrateOptions, print: (line: string) => void): CalibrationFile {
  if (options.real.length === 0) throw new UsageError('lambda:calibrate needs one or more real runs');
  checkOutputFile('--out', options.out, [options.local, ...options.real]);
  const local = loadRun(path.resolve(options.local));
  if (!local.reference || local.calibrations.length === 0) {
    throw new UsageError(`${options.local} has no Lambda estimate to fit (no local Lambda cell with its hello-world reference)`);
  }
  const { matched, days } = matchRuns(local, options);
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
      `against ${path.basename(path.resolve(options.local))}, on ${shipped.source}`,
    from: sorted[0] ?? shipped.from,
    to: sorted[sorted.length - 1] ?? shipped.to,
    handler: shipped.handler,
    notes:
      `${shipped.notes}; Init of ${fittedGroups.length} row(s) moved by the median real − estimate of their cells, ` +
      'the code-loading term shipped',
    rows,
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
  print(
    meanAbs === undefined
      ? 'leave-one-out error: none (every group has one cell; measure more cells per memory size)'
      : `leave-one-out error: mean |error| ${file.fitted.meanAbsLeaveOneOutPct} % over ${leaveOneOut.length} cells`,
  );
  return file;
}
