/**
 * The calibration in the report, for runs with Lambda cells: per local Lambda cell its Init
 * Duration and Duration as measured here, what Lambda adds (from the hello-world reference's real
 * cold starts minus the same function measured here, with the table's source, dates and spread) and
 * the estimate; the reference itself, real beside local; and summary.csv's REPORT and estimate
 * columns (calibration-csv.ts; only for runs with Lambda-shaped cells, so older server runs keep their columns).
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration, RunningTerm } from '../analyse/calibration.ts';
import { beyondEvidenceText, extrapolationText, isBeyondEvidence, type Interval } from '../analyse/estimate-interval.ts';
import { codeLoadingTermText, codeLoadingParagraph, intervalNote, KNOWN_BIASES, validationNote } from './code-loading.ts';
import { CALIBRATED_PERIOD_MS, REFERENCE_CPU_FRACTION } from '../analyse/cpu-share.ts';
import { cellKey, cellLabel } from '../core/cell.ts';
import { dollars, markdownTable, ms } from '../core/format.ts';
import { markdownCode, markdownText } from '../core/escape.ts';
import { CPU_REFERENCE } from '../calibration/lambda-cpu-reference.ts';
import type { Spread } from '../calibration/lambda-reference.ts';
import { MB_PER_VCPU } from '../core/lambda-platform.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';
import { cellCost, priceOf } from '../analyse/cost.ts';
import { TAILS_NOTE, tailCells, tailsMissing } from './init-tails.ts';

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
