/**
 * Fold the INIT split of re-measured public functions into the code-loading data, and refit k on the
 * loading part (issue 41); `npm run code-loading:fold` (cli/code-loading-fold.ts) runs it.
 *
 * Each RUN is a run folder of `measure --handler …` whose handlers were named by their function id
 * (`--name cebert-cpu-intensive,cebert-light`, `--name kisoft-node`): for every row of that function with a real hello world,
 * the cell of the row's runtime line and memory size gives `local.loading` (its Init less running and
 * the reference's beside it, their paired ratio, the running part at Lambda's CPU speed for the row's
 * architecture, and the loading median), as the estimate reads a run with the split. The measurement
 * (`--measurement ID`) is added to `measurements` from the run's meta.json (date, command, load). Rows of
 * offset groups (the server apps behind the Lambda Web Adapter) keep their whole Init: docs/guide/lambda.md.
 * `--fit` writes the refitted coefficient and leave-one-out ranges into `fit` and prints them beside the
 * previous ones. `--file` names another data file than the shipped one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calibrate, referenceSummaryOf } from '../analyse/calibration.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { fitCodeLoading, leaveOneOut, looErrorRanges, roundCoefficient, termModel } from '../analyse/code-loading.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import type { CodeLoadingData, CodeLoadingMeasurement, LoadingPart } from '../calibration/lambda-code-loading.ts';
import type { ReferenceTable } from '../calibration/lambda-reference.ts';
import { APP_SOURCE, cellKey } from '../core/cell.ts';
import type { LocalCpuSpeed, RunMeta } from '../core/meta.ts';
import { loadText } from '../core/load.ts';
import { loadRun } from '../report/write.ts';

/** One app cell's split, as the fit reads it, for one architecture of Lambda. */
export interface LoadingCell {
  /** the app's name: the function id */
  name: string;
  runtime: string;
  memoryMB: number;
  architecture: string;
  part: Omit<LoadingPart, 'measurement'>;
}

/**
 * The split of every app cell of a run beside its reference, per architecture: what the estimate
 * reads (the loading part's paired ratio, the running part at Lambda's CPU speed). A cell without the
 * split, without its reference's, or from a run that did not time the CPU loop, gives nothing.
 */
export function loadingCellsOf(
  summaries: CellSummary[],
  table: ReferenceTable,
  cpuSpeeds: Record<string, LocalCpuSpeed>,
  data: CodeLoadingData,
  architectures: readonly string[],
): LoadingCell[] {
  const byKey = new Map(summaries.map((s) => [cellKey(s.cell), s]));
  const model = termModel(data);
  return architectures.flatMap((architecture) => {
    const calibration = calibrate(summaries, table, architecture, cpuSpeeds, model);
    return summaries.flatMap((s): LoadingCell[] => {
      const split = s.lambda?.split;
      const reference = referenceSummaryOf(s.cell, byKey)?.lambda?.split;
      const init = calibration.get(cellKey(s.cell))?.init;
      if (s.cell.source !== APP_SOURCE || !split || !reference || !init?.running || !init.codeLoading) return [];
      const c = calibration.get(cellKey(s.cell))!;
      return [
        {
          name: s.cell.framework,
          runtime: c.runtime,
          memoryMB: c.memoryMB,
          architecture,
          part: {
            initMs: round2(split.initLessRunningMs.median),
            referenceInitMs: round2(reference.initLessRunningMs.median),
            ratio: Math.round(init.codeLoading.ratio * 10_000) / 10_000,
            runningMs: round2(init.running.hereMs),
            runningOnLambdaMs: round2(init.running.onLambdaMs),
            loadingMs: round2(split.loadingMs.median),
            n: split.loadingMs.n,
          },
        },
      ];
    });
  });
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The data with `cells` folded into the rows of their functions (by name, runtime line, memory size
 * and architecture) under `measurement`; returns the rows it filled, and the cells no row took.
 */
export function foldLoading(
  data: CodeLoadingData,
  cells: readonly LoadingCell[],
  measurement: CodeLoadingMeasurement,
): { data: CodeLoadingData; filled: number; unused: LoadingCell[] } {
  const used = new Set<LoadingCell>();
  let filled = 0;
  const rows = data.rows.map((row) => {
    if (!row.reference) return row;
    const cell = cells.find(
      (c) => c.name === row.function && c.runtime === row.runtime && c.memoryMB === row.memoryMB && c.architecture === row.architecture,
    );
    if (!cell) return row;
    used.add(cell);
    filled++;
    return { ...row, local: { ...row.local, loading: { measurement: measurement.id, ...cell.part } } };
  });
  const measurements = [...data.measurements.filter((m) => m.id !== measurement.id), measurement];
  return { data: { ...data, rows, measurements }, filled, unused: cells.filter((c) => !used.has(c)) };
}

/** The data with k and the leave-one-out ranges refitted on its rows (the loading part where they have it). */
export function refit(data: CodeLoadingData): CodeLoadingData {
  const coefficient = roundCoefficient(fitCodeLoading(data.rows).coefficient);
  const looErrorPct = looErrorRanges(leaveOneOut(data.rows));
  return { ...data, fit: { ...data.fit, coefficient, looErrorPct } };
}

/** The measurement entry of a run folder, from its meta.json. */
export function measurementOf(id: string, meta: RunMeta, notes: string): CodeLoadingMeasurement {
  return {
    id,
    date: meta.startedAt.slice(0, 10),
    command: meta.command,
    machine: "this project's shared 2-vCPU x86_64 machine",
    load: meta.load ? loadText(meta.load) : 'not recorded',
    notes,
  };
}

/**
 * Write what the fold and the fit change (each row's loading part, the measurements, the fit's
 * coefficient and ranges) into the file's own JSON, so that every other key keeps its place (two-space
 * JSON: `npx prettier --write FILE` then gives it the shipped file's layout).
 */
export function writeFolded(file: string, data: CodeLoadingData): void {
  type Raw = { rows: { local: Record<string, unknown> }[]; measurements: unknown[]; fit: Record<string, unknown> };
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Raw;
  raw.rows.forEach((row, i) => {
    const loading = data.rows[i]?.local.loading;
    if (loading) row.local.loading = loading;
  });
  raw.measurements = data.measurements;
  raw.fit.coefficient = data.fit.coefficient;
  raw.fit.looErrorPct = data.fit.looErrorPct;
  writeFileSync(file, `${JSON.stringify(raw, null, 2)}\n`);
}

/**
 * Fold one run folder: its app cells' split (per architecture of the data's rows) into the rows of the
 * functions they are named by, under the measurement `id` (from the run's meta.json).
 */
export function foldRun(
  data: CodeLoadingData,
  dir: string,
  id: string,
  notes: string | undefined,
): { data: CodeLoadingData; cells: LoadingCell[]; filled: number; unused: LoadingCell[] } {
  const context = loadRun(dir);
  if (!context.reference) throw new Error(`${dir}: no Lambda cell to fold`);
  if (!context.meta) throw new Error(`${dir}: no meta.json (the measurement's date, command and load come from it)`);
  const architectures = [...new Set(data.rows.map((r) => r.architecture))];
  const cells = loadingCellsOf(context.summaries, context.reference, cpuSpeedsOf(context.meta.lambda), data, architectures);
  const measurement = measurementOf(id, context.meta, notes ?? `INIT split re-measured (issue 41): ${path.basename(dir)}`);
  return { ...foldLoading(data, cells, measurement), cells };
}

/**
 * The leave-one-out table's rows as docs/guide/lambda.md and the code-loading finding print them (a
 * refit changes them: paste them there; test/unit/code-loading.test.ts checks both docs hold them).
 */
export function looTableRows(data: CodeLoadingData): string[] {
  const name = (id: string) => data.functions.find((f) => f.id === id)?.name ?? id;
  const f0 = (v: number) => v.toFixed(0);
  const sg = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)} %`;
  return leaveOneOut(data.rows).map((l) => {
    const r = l.row;
    const iqr = r.local.p25 === undefined || r.local.p75 === undefined ? '' : ` (${f0(r.local.p25)}–${f0(r.local.p75)})`;
    return (
      `| ${name(r.function)} | ${r.memoryMB} | ${r.architecture} | ${r.real.initMs} (${r.real.statistic}, ${r.real.n}) | ` +
      `${f0(r.local.initMs)}${iqr} | ${r.local.referenceInitMs === undefined ? '–' : f0(r.local.referenceInitMs)} | ` +
      `${f0(l.before)} | ${f0(l.now)} | ${sg(l.beforeErrorPct)} | ${sg(l.nowErrorPct)} |`
    );
  });
}
