/**
 * summary.csv's columns of the Lambda estimate: its intervals, per architecture, its evidence, its cost
 * and its split of INIT (calibration.ts writes the markdown of the same figures).
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import { coverageLabel } from './code-loading.ts';
import { cellKey } from '../core/cell.ts';
import { round3 } from '../core/format.ts';
import type { ArchitectureCalibration, CsvColumn, ReportContext } from './contract.ts';
import { cellCost, priceOf } from '../analyse/cost.ts';
import { extrapolatedMark, estimateCost, calibrationOf } from './calibration.ts';
import { tailCsvColumns } from './init-tails.ts';
import { powerTuningCsvColumns, powerTuningIntervalCsvColumns } from './power-tuning.ts';

/** A cell's value under one architecture's calibration, rounded for the CSV ('' without an estimate). */
function pickOf(calibration: Map<string, Calibration>) {
  return (pick: (c: Calibration) => number | undefined) => (s: CellSummary) => {
    const c = calibration.get(cellKey(s.cell));
    return c ? round3(pick(c)) : '';
  };
}

/**
 * The interval, what Lambda adds and the cost of one architecture's estimate (`suffix`: '' for the first
 * architecture, `_<architecture>` for each when there are several): every figure summary.md's estimate
 * table shows per architecture.
 */
function intervalCsvColumns(context: ReportContext, { architecture, calibration }: ArchitectureCalibration, suffix: string): CsvColumn[] {
  const est = pickOf(calibration);
  const price = priceOf(context.cost, architecture);
  const cost = (pick: (c: NonNullable<ReturnType<typeof estimateCost>>) => number | undefined) => (s: CellSummary) => {
    const c = calibration.get(cellKey(s.cell));
    const priced = c ? estimateCost(context, s, c, price) : undefined;
    return priced ? round3(pick(priced)) : '';
  };
  return [
    { header: `estimate_init_duration_low_ms${suffix}`, value: est((c) => c.init?.interval?.low) },
    { header: `estimate_init_duration_high_ms${suffix}`, value: est((c) => c.init?.interval?.high) },
    { header: `estimate_init_lambda_adds_ms${suffix}`, value: est((c) => c.init?.addition.median) },
    {
      header: `estimate_init_lambda_adds_low_ms${suffix}`,
      value: est((c) => c.init && Math.min(c.init.addition.low, c.init.addition.high)),
    },
    {
      header: `estimate_init_lambda_adds_high_ms${suffix}`,
      value: est((c) => c.init && Math.max(c.init.addition.low, c.init.addition.high)),
    },
    { header: `estimate_duration_low_ms${suffix}`, value: est((c) => c.duration?.interval?.low) },
    { header: `estimate_duration_high_ms${suffix}`, value: est((c) => c.duration?.interval?.high) },
    { header: `estimate_duration_lambda_adds_ms${suffix}`, value: est((c) => c.duration?.addition.median) },
    {
      header: `estimate_duration_lambda_adds_low_ms${suffix}`,
      value: est((c) => c.duration && Math.min(c.duration.addition.low, c.duration.addition.high)),
    },
    {
      header: `estimate_duration_lambda_adds_high_ms${suffix}`,
      value: est((c) => c.duration && Math.max(c.duration.addition.low, c.duration.addition.high)),
    },
    { header: `estimate_billed_duration_low_ms${suffix}`, value: est((c) => c.billedInterval?.low) },
    { header: `estimate_billed_duration_high_ms${suffix}`, value: est((c) => c.billedInterval?.high) },
    ...(suffix ? [] : [{ header: 'estimate_cost_per_million_usd', value: cost((c) => c.perMillion) }]),
    { header: `estimate_cost_per_million_usd_low${suffix}`, value: cost((c) => c.low) },
    { header: `estimate_cost_per_million_usd_high${suffix}`, value: cost((c) => c.high) },
  ];
}

function architectureCsvColumns(context: ReportContext, { architecture, calibration }: ArchitectureCalibration): CsvColumn[] {
  const est = pickOf(calibration);
  const price = priceOf(context.cost, architecture);
  return [
    { header: `estimate_init_duration_ms_${architecture}`, value: est((c) => c.init?.estimate) },
    { header: `estimate_duration_ms_${architecture}`, value: est((c) => c.duration?.estimate) },
    { header: `estimate_billed_duration_ms_${architecture}`, value: est((c) => c.billedEstimate) },
    ...tailCsvColumns(calibration, `_${architecture}`),
    {
      header: `estimate_cost_per_million_usd_${architecture}`,
      value: (s) => {
        const billed = calibration.get(cellKey(s.cell))?.billedEstimate;
        return billed === undefined ? '' : round3(cellCost(s, { ...context.cost, pricePerGBs: price }, billed)?.perMillion);
      },
    },
  ];
}

/**
 * The estimate's evidence, the same for every architecture (the code-loading term does not depend on it):
 * the cell's excess over the hello world here and at the fit's speed, whether it lies beyond the
 * excesses the term was fitted on, and by what factor.
 */
function evidenceCsvColumns(context: ReportContext): CsvColumn[] {
  const est = pickOf(context.calibration);
  return [
    { header: 'estimate_init_excess_here_ms', value: est((c) => c.init?.codeLoading?.excessMs) },
    { header: 'estimate_init_excess_fit_speed_ms', value: est((c) => c.init?.codeLoading?.atFitSpeedMs) },
    { header: 'estimate_init_fitted_up_to_ms', value: est((c) => c.init?.codeLoading?.fittedUpToMs) },
    {
      header: 'estimate_extrapolated',
      value: (s) => {
        const c = calibrationOf(context, s);
        return c?.init?.codeLoading ? (c.init.extrapolation ? 'yes' : 'no') : '';
      },
    },
    { header: 'estimate_extrapolation_factor', value: est((c) => c.init?.extrapolation?.factor) },
  ];
}

/** The cost table's figure of every cell (summary.md's cost section): the first architecture's price, by its basis. */
function costCsvColumns(context: ReportContext): CsvColumn[] {
  const cost = (s: CellSummary) => cellCost(s, context.cost, calibrationOf(context, s)?.billedEstimate);
  return [
    { header: 'cost_per_million_usd', value: (s) => round3(cost(s)?.perMillion) },
    { header: 'cost_basis', value: (s) => cost(s)?.basis ?? '' },
  ];
}

/**
 * summary.csv's REPORT columns and the estimate, only for runs with Lambda-shaped cells. The columns
 * added with the interval (issue 36) come after the older ones, so a reader of those finds each where it
 * was; per architecture they are named by it (`…_arm64`), one row per cell as before.
 */
export function calibrationCsvColumns(context: ReportContext): CsvColumn[] {
  if (!context.summaries.some((s) => s.lambda)) return [];
  const est = pickOf(context.calibration);
  const several = context.calibrations.length > 1;
  const first = context.calibrations[0];
  return [
    { header: 'lambda_init_duration_median_ms', value: (s) => round3(s.lambda?.initMs.median) },
    { header: 'lambda_duration_median_ms', value: (s) => round3(s.lambda?.durationMs.median) },
    { header: 'lambda_billed_duration_median_ms', value: (s) => round3(s.lambda?.billedMs.median) },
    { header: 'lambda_max_memory_used_mb', value: (s) => s.lambda?.maxMemoryUsedMB ?? '' },
    { header: 'lambda_invoke_cpu_median_ms', value: (s) => round3(s.lambda?.invokeCpuMs?.median) },
    { header: 'estimate_init_duration_ms', value: est((c) => c.init?.estimate) },
    // the part of the Init estimate the code-loading term gives (report/code-loading.ts)
    ...(context.codeLoading ? [{ header: 'estimate_init_code_loading_ms', value: est((c) => c.init?.codeLoading?.ms) }] : []),
    { header: 'estimate_duration_ms', value: est((c) => c.duration?.estimate) },
    { header: 'estimate_billed_duration_ms', value: est((c) => c.billedEstimate) },
    ...tailCsvColumns(context.calibration, ''),
    { header: 'calibration_source', value: (s) => (calibrationOf(context, s)?.row && context.reference ? context.reference.source : '') },
    // --arch x86_64,arm64: every architecture's estimate and cost, named by it (the columns above are the first one's)
    ...(several ? context.calibrations.flatMap((a) => architectureCsvColumns(context, a)) : []),
    ...costCsvColumns(context),
    ...(context.codeLoading ? evidenceCsvColumns(context) : []),
    ...(first ? intervalCsvColumns(context, first, '') : []),
    ...(several ? context.calibrations.flatMap((a) => intervalCsvColumns(context, a, `_${a.architecture}`)) : []),
    ...powerTuningCsvColumns(context),
    ...splitCsvColumns(context),
    ...evidenceIntervalCsvColumns(context),
  ];
}

/**
 * Issue 47's columns, after every older one so that a reader of those finds each where it was: INIT's
 * running part beyond the reference's as measured here; per architecture (several asked) the running part
 * on Lambda with its interval and factor, as the estimate table
 * shows it; each architecture's evidence ('' within it, else the mark summary.md prints in place of an
 * interval) and the coverage its interval states; the power-tuning table's intervals.
 */
function evidenceIntervalCsvColumns(context: ReportContext): CsvColumn[] {
  const several = context.calibrations.length > 1;
  const split = context.summaries.some((s) => s.lambda?.split);
  const coverage = coverageLabel(context.codeLoading, context.reference?.codeLoading !== undefined);
  const perArchitecture = ({ architecture, calibration }: ArchitectureCalibration): CsvColumn[] => {
    const est = pickOf(calibration);
    const suffix = several ? `_${architecture}` : '';
    const text = (pick: (c: Calibration) => string) => (s: CellSummary) => {
      const c = calibration.get(cellKey(s.cell));
      return c?.init?.codeLoading ? pick(c) : '';
    };
    return [
      ...(split && several
        ? [
            { header: `estimate_init_running_ms${suffix}`, value: est((c) => c.init?.running?.onLambdaMs) },
            { header: `estimate_init_running_low_ms${suffix}`, value: est((c) => c.init?.running?.interval?.low) },
            { header: `estimate_init_running_high_ms${suffix}`, value: est((c) => c.init?.running?.interval?.high) },
            { header: `estimate_init_running_cpu_factor${suffix}`, value: est((c) => c.init?.running?.factor) },
          ]
        : []),
      { header: `estimate_beyond_evidence${suffix}`, value: text((c) => extrapolatedMark(c)) },
      { header: `estimate_interval_coverage${suffix}`, value: text((c) => (c.init?.interval ? coverage : '')) },
    ];
  };
  // the running part beyond the reference's, here (the running column's "+260 here"; no architecture changes it)
  const here = pickOf(context.calibration);
  return [
    ...(split
      ? [
          { header: 'lambda_init_running_beyond_reference_ms', value: here((c) => c.init?.running?.hereMs) },
          { header: 'lambda_init_running_cpu_beyond_reference_ms', value: here((c) => c.init?.running?.hereCpuMs) },
        ]
      : []),
    ...(context.codeLoading ? context.calibrations.flatMap(perArchitecture) : []),
    ...powerTuningIntervalCsvColumns(context),
  ];
}

/**
 * INIT's split (issue 41), only when some cell recorded it (older runs keep their columns): the medians
 * of loading, running, modules and their bytes, and the running part of the estimate with its interval;
 * then, when some cell recorded it, the running part's CPU time (what the estimate scales).
 */
function splitCsvColumns(context: ReportContext): CsvColumn[] {
  if (!context.summaries.some((s) => s.lambda?.split)) return [];
  const est = pickOf(context.calibration);
  const split = (pick: (s: NonNullable<NonNullable<CellSummary['lambda']>['split']>) => number) => (s: CellSummary) =>
    s.lambda?.split ? round3(pick(s.lambda.split)) : '';
  return [
    { header: 'lambda_init_loading_median_ms', value: split((x) => x.loadingMs.median) },
    { header: 'lambda_init_running_median_ms', value: split((x) => x.runningMs.median) },
    { header: 'lambda_init_modules_median', value: split((x) => x.modules.median) },
    { header: 'lambda_init_module_bytes_median', value: split((x) => x.moduleBytes.median) },
    { header: 'estimate_init_running_ms', value: est((c) => c.init?.running?.onLambdaMs) },
    { header: 'estimate_init_running_low_ms', value: est((c) => c.init?.running?.interval?.low) },
    { header: 'estimate_init_running_high_ms', value: est((c) => c.init?.running?.interval?.high) },
    { header: 'estimate_init_running_cpu_factor', value: est((c) => c.init?.running?.factor) },
    // the running part in CPU time, only when some cell recorded it (runs before it keep their columns)
    ...(context.summaries.some((s) => s.lambda?.split?.runningCpuMs)
      ? [
          {
            header: 'lambda_init_running_cpu_median_ms',
            value: (s: CellSummary) => (s.lambda?.split?.runningCpuMs ? round3(s.lambda.split.runningCpuMs.median) : ''),
          },
        ]
      : []),
  ];
}
