/** summary.md's cost section: $ per million cold starts, rows N, a column per framework. */
import { cellCost, type CostSettings } from '../analyse/cost.ts';
import { ARCHITECTURE_SHORT_NAME, MB_PER_VCPU, REQUEST_PRICE_PER_MILLION } from '../core/lambda-platform.ts';
import { calibrationOf, estimateCost, estimateCostText } from './calibration.ts';
import { BEYOND_EVIDENCE_NOTE, coverageLabel } from './code-loading.ts';
import { isBeyondEvidence } from '../analyse/estimate-interval.ts';
import type { MarkdownSection, ReportContext } from './contract.ts';
import { appsRun, pivotTables } from './markdown.ts';
import { cellLabel } from '../core/cell.ts';
import { dollars, markdownTable } from '../core/format.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { targetKind } from '../core/kinds.ts';

/** The text of a cell's cost in the cost tables: an estimate's with its interval and mark, else the priced median. */
export function costCellText(context: ReportContext, s: CellSummary): string {
  const c = calibrationOf(context, s);
  if (c?.billedEstimate !== undefined) return estimateCostText(estimateCost(context, s, c, context.cost.pricePerGBs), c);
  return dollars(cellCost(s, context.cost, undefined)?.perMillion);
}

/** The title of the cost section, with what it prices: memory, architecture or price. */
export function costTitle(context: ReportContext): string {
  const { cost } = context;
  const own = context.summaries.some((s) => s.cell.memory > 0);
  const memory = own ? 'each cell at its own memory size' : `${cost.memoryMB} MB`;
  const what = cost.customPrice ? `${memory} at $${cost.pricePerGBs}/GB-s` : `${memory}, ${ARCHITECTURE_SHORT_NAME[cost.arch]}`;
  return `Cost: $ per million cold starts (AWS Lambda, ${what})`;
}

/** The paragraphs under the cost table (markdown): the formula, what the figures are, and the notes the run's cells call for. */
export function costParagraphs(context: ReportContext): string[] {
  const { cost } = context;
  const beyond = context.summaries.some((s) => isBeyondEvidence(calibrationOf(context, s)?.init));
  const estimated = context.summaries.some((s) => calibrationOf(context, s)?.billedEstimate !== undefined);
  const own = context.summaries.some((s) => s.cell.memory > 0);
  const lambda = context.summaries.some((s) => s.lambda);
  const notes = [
    ...(lambda
      ? [
          'Lambda cells (`lambda/…`) are priced by their median Billed Duration (Init Duration + Duration, each rounded up to 1 ms, ' +
            `as Lambda bills an on-demand cold start) plus $${REQUEST_PRICE_PER_MILLION} per million requests; ` +
            'server cells by their median firstResponse.',
        ]
      : []),
    ...(estimated
      ? [
          'Local Lambda cells with a calibrated estimate are priced by the **estimate** of their Billed Duration on Lambda ' +
            `(section "Lambda: measured here, what Lambda adds, the estimate"; calibrated on real data from ${context.reference?.from} ` +
            `to ${context.reference?.to}), not by the figure measured here; in brackets its interval (the Billed interval priced; ` +
            `${coverageLabel(context.codeLoading, context.reference?.codeLoading !== undefined)}).`,
        ]
      : []),
    ...(estimated && context.loadWarning ? [`⚠ ${context.loadWarning}.`] : []),
    ...(beyond ? [`${BEYOND_EVIDENCE_NOTE} (the evidence column of the Lambda section)`] : []),
    ...(own
      ? [
          'Cells run at a memory size (`memory=…MB`, with its CPU share and memory limit) are priced at that size; ' +
            'the others at the size above.',
        ]
      : []),
  ];
  const explanation = costExplanation(
    cost,
    own,
    context.summaries.some((s) => targetKind(s.cell.target).local),
    appsRun(context.meta),
  ).split('\n\n');
  return [...explanation, ...(notes.length ? [notes.join(' ')] : [])];
}

export function costSection(context: ReportContext): MarkdownSection {
  // Web Functions are priced in their own section, at the user's rates only
  const summaries = context.summaries.filter((s) => !targetKind(s.cell.target).caps);
  if (summaries.length === 0 && context.summaries.length > 0) return { title: 'Cost', body: WEB_COST_NOTE };
  // the user's apps: a row per app (they have no route count to pivot on)
  const table = appsRun(context.meta)
    ? markdownTable(
        ['app', '$ per million cold starts'],
        summaries.map((s) => [cellLabel(s.cell), costCellText(context, s)]),
        ['left', 'right'],
      )
    : pivotTables(summaries, 'firstResponse', (s) => costCellText(context, s));
  return { title: costTitle(context), body: [table, ...costParagraphs(context)].join('\n\n') };
}

/** Why a Lambda Web Function's cold start is not in the cost table. */
export const WEB_COST_NOTE =
  "Lambda Web Functions are not priced at the event functions' GB-second rate: they are billed on active CPU and " +
  "memory at rates AWS does not publish; their section gives each cold start's CPU- and GB-seconds, and a $ at your rates " +
  '(--price-file or --web-*-price).';

/**
 * The lines the report prints under the cost table: settings, formula, caveats. `ownMemory`: cells
 * are priced at their own memory sizes; `local`: some figures were measured here (not imported from AWS).
 */
export function costExplanation(settings: CostSettings, ownMemory = false, local = true, apps = false): string {
  const gb = settings.memoryMB / 1024;
  const memory = ownMemory ? 'the memory size (MB) / 1024' : `${settings.memoryMB} MB / 1024 (= ${gb} GB)`;
  return [
    `$ per million cold starts = firstResponse median (ms) / 1000 × ${memory} × $${settings.pricePerGBs} per GB-s × 10^6` +
      ` (AWS Lambda on-demand, ${settings.customPrice ? 'price given with --price' : `${ARCHITECTURE_SHORT_NAME[settings.arch]} price`}; ` +
      'since 1 Aug 2025 Lambda bills the INIT phase of on-demand functions).',
    '',
    ...(local
      ? [
          '_These are local timings, not Lambda timings: Lambda gives a function CPU in proportion to its memory ' +
            `(one full vCPU at ${MB_PER_VCPU} MB), runs its own runtime bootstrap, and rounds each duration up to 1 ms. ` +
            `Read this as the relative cost of the ${apps ? 'apps' : 'frameworks'}' cold starts, not as a bill._`,
        ]
      : ["_These figures are AWS Lambda's own (imported REPORT lines)._"]),
  ].join('\n');
}
