/**
 * The calibration in the report, for runs with Lambda cells: per local Lambda cell its Init
 * Duration and Duration as measured here, what Lambda adds (from the hello-world reference's real
 * cold starts minus the same function measured here, with the table's source, dates and spread) and
 * the estimate; the reference itself, real beside local; and summary.csv's REPORT and estimate
 * columns (only for runs with Lambda-shaped cells, so older server runs keep their columns).
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import { codeLoadingTermText, codeLoadingParagraph, validationNote } from './code-loading.ts';
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

/** The estimate of a cell, when the run could make one. */
export function calibrationOf(context: ReportContext, summary: CellSummary): Calibration | undefined {
  return context.calibration.get(cellKey(summary.cell));
}

/** The calibrations the tables show: every architecture the report estimates, each with its price. */
function perArchitecture(context: ReportContext): { calibration: Map<string, Calibration>; price: number }[] {
  return context.calibrations.map(({ architecture, calibration }) => ({ calibration, price: priceOf(context.cost, architecture) }));
}

function estimateRow(context: ReportContext, s: CellSummary, c: Calibration, price: number | undefined): string[] {
  const cost = price === undefined ? undefined : cellCost(s, { ...context.cost, pricePerGBs: price }, c.billedEstimate);
  const tails = tailCells(c);
  return [
    cellLabel(s.cell),
    `${c.runtime} ${c.architecture} ${c.memoryMB} MB`,
    ms(c.init?.measured ?? s.lambda?.initMs.median),
    c.init ? additionText(c.init.addition) : '–',
    ...(context.codeLoading ? [codeLoadingTermText(c.init?.codeLoading)] : []),
    c.init ? ms(c.init.estimate) : '–',
    tails.init,
    ms(c.duration?.measured ?? s.lambda?.durationMs.median),
    c.duration ? additionText(c.duration.addition) : '–',
    c.duration ? ms(c.duration.estimate) : '–',
    tails.duration,
    c.billedEstimate === undefined ? '–' : String(c.billedEstimate),
    // with more than one architecture: each one's cost at its own price, the Billed estimate's
    ...(price === undefined ? [] : [cost?.basis === 'estimate' ? dollars(cost.perMillion) : '–']),
  ];
}

function estimateTable(context: ReportContext): string {
  const several = context.calibrations.length > 1;
  const term = context.codeLoading !== undefined;
  const rows = context.summaries.flatMap((s) =>
    perArchitecture(context).flatMap(({ calibration, price }) => {
      const c = calibration.get(cellKey(s.cell));
      return c ? [estimateRow(context, s, c, several ? price : undefined)] : [];
    }),
  );
  return markdownTable(
    [
      '',
      'as on Lambda',
      'Init measured here',
      'Init: Lambda adds',
      ...(term ? ['Init: code loading'] : []),
      'Init estimate',
      'Init p95 / p99',
      'Duration measured here',
      'Duration: Lambda adds',
      'Duration estimate',
      'Duration p95 / p99',
      'Billed estimate',
      ...(several ? ['$ per million cold starts (estimate)'] : []),
    ],
    rows,
    ['left', 'left', ...Array<'right'>(9 + (term ? 1 : 0)).fill('right'), ...(several ? (['right'] as const) : [])],
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

export function calibrationSection(context: ReportContext): MarkdownSection | undefined {
  if (context.calibration.size === 0 || !context.reference) return undefined;
  const missing = [...new Set([...context.calibration.values()].flatMap((c) => (c.missing ? [c.missing] : [])))];
  const parts = [
    // the table may be a user's own (lambda:reference --out): its text is escaped like any text from outside
    `Calibration: ${markdownText(context.reference.source)} (hello world: ${markdownCode(context.reference.handler)}; ` +
      `${markdownText(context.reference.notes)}).`,
    ...(context.referenceWarning ? ['', `⚠ ${markdownText(context.referenceWarning)}`] : []),
    '',
    'Per local Lambda cell (medians, ms): measured here, what Lambda adds (median, and in brackets the spread: the real ' +
      "reference's interquartile range for Init, the cell's CPU-time quartiles for Duration), and the estimate. " +
      "**Init**: Lambda adds the real reference's median Init Duration minus the same function measured here under the " +
      'same settings (runtime line, memory size, start, file cache); the addition holds what cannot happen here (sandbox ' +
      'and extension setup, log shipping, the host) and changes with those settings (a cold file cache here leaves less to ' +
      "add) but not with the app. **Duration**: the invocation's CPU time here, converted to Lambda's speed by the " +
      `reference, through the CPU share model (a budget of memory / ${MB_PER_VCPU} vCPUs per ${CALIBRATED_PERIOD_MS} ms period, ` +
      `random phase, ${Math.round(REFERENCE_CPU_FRACTION * 100)} % of the reference's Duration CPU; see the README). ` +
      'The cost and power-tuning tables use the estimate' +
      (context.calibrations.length > 1
        ? ` of the first architecture (${context.cost.arch}); the table below prices every architecture asked (--arch) at its own price.`
        : '.'),
    '',
    ...(context.codeLoading ? [markdownText(codeLoadingParagraph(context.codeLoading)), ''] : []),
    markdownText(validationNote(context.codeLoading)),
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

function architectureCsvColumns(context: ReportContext, { architecture, calibration }: ArchitectureCalibration): CsvColumn[] {
  const est = (pick: (c: Calibration) => number | undefined) => (s: CellSummary) => {
    const c = calibration.get(cellKey(s.cell));
    return c ? round3(pick(c)) : '';
  };
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

/** summary.csv's REPORT columns and the estimate, only for runs with Lambda-shaped cells. */
export function calibrationCsvColumns(context: ReportContext): CsvColumn[] {
  if (!context.summaries.some((s) => s.lambda)) return [];
  const est = (pick: (c: Calibration) => number | undefined) => (s: CellSummary) => {
    const c = calibrationOf(context, s);
    return c ? round3(pick(c)) : '';
  };
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
    ...(context.calibrations.length > 1 ? context.calibrations.flatMap((a) => architectureCsvColumns(context, a)) : []),
  ];
}
