/**
 * The calibration in the report, for runs with Lambda cells: per local Lambda cell its Init
 * Duration and Duration as measured here, what Lambda adds (from the hello-world reference's real
 * cold starts minus the same function measured here, with the table's source, dates and spread) and
 * the estimate; the reference itself, real beside local; and summary.csv's REPORT and estimate
 * columns (only for runs with Lambda-shaped cells, so older server runs keep their columns).
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration, RunningTerm } from '../analyse/calibration.ts';
import { beyondEvidenceText, extrapolationText, isBeyondEvidence, type Interval } from '../analyse/estimate-interval.ts';
import { codeLoadingTermText, codeLoadingParagraph, coverageLabel, intervalNote, KNOWN_BIASES, validationNote } from './code-loading.ts';
import { CALIBRATED_PERIOD_MS, REFERENCE_CPU_FRACTION } from '../analyse/cpu-share.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { round3 } from '../core/format.ts';
import { dollars, markdownTable, ms } from '../core/format.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import { CPU_REFERENCE } from '../calibration/lambda-cpu-reference.ts';
import type { Spread } from '../calibration/lambda-reference.ts';
import { MB_PER_VCPU } from '../core/lambda-platform.ts';
import type { ArchitectureCalibration, CsvColumn, MarkdownSection, ReportContext } from './contract.ts';
import { cellCost, priceOf } from '../analyse/cost.ts';
import { TAILS_NOTE, tailCells, tailCsvColumns, tailsMissing } from './init-tails.ts';
import { powerTuningCsvColumns, powerTuningIntervalCsvColumns } from './power-tuning.ts';

const signed = (value: number) => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;

function additionText(a: { median: number; low: number; high: number }): string {
  const low = Math.min(a.low, a.high);
  const high = Math.max(a.low, a.high);
  return `${signed(a.median)} (${signed(low)} to ${signed(high)})`;
}

function spreadText(s: Spread): string {
  const tail = s.p95 === undefined || s.p99 === undefined ? '' : `, p95 ${ms(s.p95)}, p99 ${ms(s.p99)}`;
  return `${ms(s.median)} (IQR ${ms(s.p25)}–${ms(s.p75)}${tail}, n ${s.n})`;
}

/** "1464–2458": an estimate's interval, ms. */
export function intervalText(i: Interval | undefined): string {
  return i ? `${ms(i.low)}–${ms(i.high)}` : '–';
}

/**
 * The mark an estimate beyond its evidence carries wherever a figure of it is shown, in place of any
 * interval: "beyond evidence: ×1.60 on loading, running part unvalidated" (estimate-interval.ts); ''
 * within it.
 */
export function extrapolatedMark(c: Calibration | undefined): string {
  return beyondEvidenceText(c?.init);
}

/** An Init or Billed interval's cell: the interval within the evidence, the beyond-evidence mark in its place beyond it. */
export function estimateIntervalText(c: Calibration, i: Interval | undefined): string {
  return extrapolatedMark(c) || intervalText(i);
}

/** The estimate's evidence: within the fitted range on both terms, or how far beyond on each. */
export function evidenceText(c: Calibration): string {
  const init = c.init;
  if (isBeyondEvidence(init)) {
    const parts = [
      ...(init?.extrapolation ? [`loading ${extrapolationText(init.extrapolation, ms)}`] : []),
      ...(init?.runningUnvalidated
        ? [
            `running part ${ms(init.runningUnvalidated.onLambdaMs)} ms on Lambda, unvalidated ` +
              (init.runningUnvalidated.fittedUpToMs > 0
                ? `(the largest fitted: ${ms(init.runningUnvalidated.fittedUpToMs)} ms)`
                : "(no fitted function's INIT was split: no real figure supports it)"),
          ]
        : []),
    ];
    return `⚠ beyond evidence: ${parts.join('; ')}`;
  }
  return init?.codeLoading ? 'within the fitted range' : '–';
}

/** A cell's cost at the Billed estimate and at its interval's ends, at one price. */
export function estimateCost(
  context: ReportContext,
  s: CellSummary,
  c: Calibration,
  price: number,
): { perMillion: number; low?: number; high?: number } | undefined {
  const settings = { ...context.cost, pricePerGBs: price };
  const cost = cellCost(s, settings, c.billedEstimate);
  if (cost?.basis !== 'estimate') return undefined;
  const at = (billed: number) => cellCost(s, settings, billed)?.perMillion;
  return c.billedInterval ? { perMillion: cost.perMillion, low: at(c.billedInterval.low), high: at(c.billedInterval.high) } : cost;
}

/** "$34.07 ($27.47–$44.07)": an estimate's cost and its interval; beyond the evidence, the mark and no interval. */
export function estimateCostText(cost: { perMillion: number; low?: number; high?: number } | undefined, c: Calibration): string {
  if (!cost) return '–';
  const mark = extrapolatedMark(c);
  if (mark) return `${dollars(cost.perMillion)} ${mark}`;
  const range = cost.low !== undefined && cost.high !== undefined ? ` (${dollars(cost.low)}–${dollars(cost.high)})` : '';
  return `${dollars(cost.perMillion)}${range}`;
}

/** The estimate of a cell, when the run could make one. */
export function calibrationOf(context: ReportContext, summary: CellSummary): Calibration | undefined {
  return context.calibration.get(cellKey(summary.cell));
}

/** The calibrations the tables show: every architecture the report estimates, each with its price. */
function perArchitecture(context: ReportContext): { calibration: Map<string, Calibration>; price: number }[] {
  return context.calibrations.map(({ architecture, calibration }) => ({ calibration, price: priceOf(context.cost, architecture) }));
}

/** Whether some estimate split INIT into loading and running (a run from before the split has none: its tables stay as they were). */
export function hasRunning(context: ReportContext): boolean {
  return context.calibrations.some(({ calibration }) => [...calibration.values()].some((c) => c.init?.running));
}

/**
 * "+292 (230 here × 1.27 on Lambda's CPU, 281–309; loading 188 ms, 247 modules)": the running part of a
 * split Init estimate; "+292 (+230 CPU ms here × …)" when it scaled the running part's CPU time.
 */
export function runningTermText(running: RunningTerm | undefined): string {
  if (!running) return '–';
  const interval = running.interval ? `, ${intervalText(running.interval)}` : '';
  const here = running.hereCpuMs !== undefined ? `${signed(running.hereCpuMs)} CPU ms` : signed(running.hereMs);
  return (
    `${signed(running.onLambdaMs)} (${here} here × ${running.factor.toFixed(2)} on Lambda's CPU${interval}; ` +
    `loading ${ms(running.loadingMs)} ms, ${Math.round(running.modules)} modules)`
  );
}

function estimateRow(context: ReportContext, s: CellSummary, c: Calibration, price: number): string[] {
  const tails = tailCells(c);
  return [
    cellLabel(s.cell),
    `${c.runtime} ${c.architecture} ${c.memoryMB} MB`,
    ms(c.init?.measured ?? s.lambda?.initMs.median),
    c.init ? additionText(c.init.addition) : '–',
    ...(context.codeLoading ? [codeLoadingTermText(c.init?.codeLoading)] : []),
    ...(hasRunning(context) ? [runningTermText(c.init?.running)] : []),
    c.init ? ms(c.init.estimate) : '–',
    estimateIntervalText(c, c.init?.interval),
    tails.init,
    ms(c.duration?.measured ?? s.lambda?.durationMs.median),
    c.duration ? additionText(c.duration.addition) : '–',
    c.duration ? ms(c.duration.estimate) : '–',
    intervalText(c.duration?.interval),
    tails.duration,
    c.billedEstimate === undefined ? '–' : String(c.billedEstimate),
    extrapolatedMark(c) || (c.billedInterval ? `${c.billedInterval.low}–${c.billedInterval.high}` : '–'),
    // each architecture's cost at its own price, the Billed estimate's, with its interval
    estimateCostText(estimateCost(context, s, c, price), c),
    evidenceText(c),
  ];
}

function estimateTable(context: ReportContext): string {
  const term = context.codeLoading !== undefined;
  const running = hasRunning(context);
  const rows = context.summaries.flatMap((s) =>
    perArchitecture(context).flatMap(({ calibration, price }) => {
      const c = calibration.get(cellKey(s.cell));
      return c ? [estimateRow(context, s, c, price)] : [];
    }),
  );
  return markdownTable(
    [
      '',
      'as on Lambda',
      'Init measured here',
      'Init: Lambda adds',
      ...(term ? ['Init: code loading'] : []),
      ...(running ? ["Init: running (× Lambda's CPU)"] : []),
      'Init estimate',
      'Init interval',
      'Init p95 / p99',
      'Duration measured here',
      'Duration: Lambda adds',
      'Duration estimate',
      'Duration interval',
      'Duration p95 / p99',
      'Billed estimate',
      'Billed interval',
      '$ per million cold starts (estimate, interval)',
      'evidence',
    ],
    rows,
    ['left', 'left', ...Array<'right'>(13 + (term ? 1 : 0) + (running ? 1 : 0)).fill('right'), 'left'],
  );
}

/** The reference function, real (the table) beside its local measurement, per setting the run used. */
function referenceTable(context: ReportContext): string | undefined {
  const rows = context.summaries.flatMap((s) =>
    context.calibrations.flatMap(({ calibration }) => {
      const c = calibration.get(cellKey(s.cell));
      if (!c || s.cell.framework !== 'reference' || !c.row || !s.lambda) return [];
      return [
        [
          cellLabel(s.cell),
          `${c.row.runtime} ${c.row.architecture} ${c.row.memoryMB} MB`,
          spreadText(c.row.initMs),
          `${ms(s.lambda.initMs.median)} (n ${s.lambda.initMs.n})`,
          spreadText(c.row.durationMs),
          ms(s.lambda.durationMs.median),
          c.duration ? ms(c.duration.estimate) : '–',
        ],
      ];
    }),
  );
  if (rows.length === 0) return undefined;
  return markdownTable(
    ['reference cell', 'real row', 'real Init Duration', 'Init here', 'real Duration', 'Duration here', 'Duration estimate'],
    rows,
    ['left', 'left', 'right', 'right', 'right', 'right', 'right'],
  );
}

/** What Lambda's CPU speed was taken to be, per runtime, when the run timed the CPU reference's loop (absent in older runs). */
function cpuSpeedLines(context: ReportContext): string[] {
  const seen = new Map<string, string>();
  for (const summary of context.summaries) {
    const speed = context.calibration.get(cellKey(summary.cell))?.cpuSpeed;
    if (!speed) continue;
    const runtime = summary.cell.runtime;
    const { factor, row, localMs } = speed;
    const id = `${runtime}|${row.runtime}|${row.architecture}`;
    if (seen.has(id)) continue;
    seen.set(
      id,
      `- ${markdownText(runtime)}: ${ms(localMs)} ms of CPU here against ${ms(row.durationMs)} ms on Lambda ` +
        `(${markdownText(row.runtime)} ${markdownText(row.architecture)} ${row.memoryMB} MB): ` +
        `Lambda's CPU ${factor.toFixed(2)}× this machine's`,
    );
  }
  if (!seen.size) return [];
  return [
    '',
    `Lambda's CPU speed, for Duration: the cell's invocation CPU beyond the local reference's is converted at Lambda's speed ` +
      `and added to the reference's Lambda CPU. The speed is the CPU reference's loop (${markdownText(CPU_REFERENCE.workload)}; ` +
      `${markdownText(CPU_REFERENCE.source)}, ${CPU_REFERENCE.date}, ${markdownText(CPU_REFERENCE.notes)}), timed here on each runtime:`,
    '',
    ...seen.values(),
  ];
}

/** What the running column means: said only in reports whose cells recorded INIT's split. */
const SPLIT_NOTE =
  '**Init split** (loading and running): the probe times what INIT spends inside require (resolving, reading, compiling and ' +
  "running the required modules: loading) and the rest of the file's own INIT up to its startup mark (running: the app's own " +
  "work, such as fastify's ready() in an eager file). The code-loading term then applies to the loading part only (the cell's " +
  "Init less its running, over the reference's likewise), and the running part beyond the reference's is CPU work, which INIT " +
  "runs at full CPU: it is multiplied by Lambda's CPU time for the CPU reference's loop over this machine's (below), not by 1 + k. " +
  "Its interval is its median's bootstrap interval at the factor's range over the loop's runs here; the Init interval adds it " +
  "to the loading part's.";

export function calibrationSection(context: ReportContext): MarkdownSection | undefined {
  if (context.calibration.size === 0 || !context.reference) return undefined;
  const missing = [...new Set([...context.calibration.values()].flatMap((c) => (c.missing ? [c.missing] : [])))];
  const parts = [
    // the table may be a user's own (lambda:reference --out): its text is escaped like any text from outside
    `Calibration: ${markdownText(context.reference.source)} (hello world: ${markdownCode(context.reference.handler)}; ` +
      `${markdownText(context.reference.notes)}).`,
    ...(context.calibrationFile
      ? [
          '',
          `Calibration file: ${markdownCode(context.calibrationFile.file)} (sha256 ${markdownCode(context.calibrationFile.sha256)}), ` +
            'given with --calibration in place of the shipped table.',
        ]
      : []),
    ...(context.calibrationNote ? ['', `⚠ ${markdownText(context.calibrationNote)}`] : []),
    ...(context.referenceWarning ? ['', `⚠ ${markdownText(context.referenceWarning)}`] : []),
    ...(context.loadWarning ? ['', `⚠ ${markdownText(context.loadWarning)}`] : []),
    '',
    'Per local Lambda cell (medians, ms): measured here, what Lambda adds (median, and in brackets the spread: the real ' +
      "reference's interquartile range for Init, the cell's CPU-time quartiles for Duration), and the estimate. " +
      "**Init**: Lambda adds the real reference's median Init Duration minus the same function measured here under the " +
      'same settings (runtime line, memory size, start, file cache); the addition holds what cannot happen here (sandbox ' +
      'and extension setup, log shipping, the host) and changes with those settings (a cold file cache here leaves less to ' +
      "add) but not with the app. **Duration**: the invocation's CPU time here, converted to Lambda's speed by the " +
      `reference, through the CPU share model (a budget of memory / ${MB_PER_VCPU} vCPUs per ${CALIBRATED_PERIOD_MS} ms period, ` +
      `random phase, ${Math.round(REFERENCE_CPU_FRACTION * 100)} % of the reference's Duration CPU; ` +
      'see docs/guide/memory-sizes.md#the-cpu-share-of-a-short-invocation). ' +
      'The cost and power-tuning tables use the estimate' +
      (context.calibrations.length > 1
        ? ` of the first architecture (${context.cost.arch}); the table below prices every architecture asked (--arch) at its own price.`
        : '.'),
    '',
    ...(context.codeLoading ? [markdownText(codeLoadingParagraph(context.codeLoading)), ''] : []),
    markdownText(validationNote(context.codeLoading)),
    ...(context.codeLoading
      ? ['', markdownText(intervalNote(context.codeLoading, context.reference.codeLoading !== undefined)), '', markdownText(KNOWN_BIASES)]
      : []),
    ...(hasRunning(context) ? ['', SPLIT_NOTE] : []),
    ...cpuSpeedLines(context),
    '',
    TAILS_NOTE,
    '',
    estimateTable(context),
    ...tailsMissing(context).flatMap((line) => ['', line]),
  ];
  const reference = referenceTable(context);
  if (reference) parts.push('', 'The reference itself, real beside here (its Duration estimate checks the model):', '', reference);
  if (missing.length) parts.push('', ...missing.map((m) => `- no estimate: ${m}`));
  return { title: 'Lambda: measured here, what Lambda adds, the estimate', body: parts.join('\n') };
}

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
