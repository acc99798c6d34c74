/**
 * A run folder's artefacts, all rebuilt from samples.jsonl (and meta.json when present): every
 * output format is one entry in OUTPUTS, so `npm run report -- DIR` and a live run write the same.
 */
import { existsSync } from 'node:fs';
import { writeOwnedFile } from '../store/files.ts';
import path from 'node:path';
import { Aggregator, type CellSummary } from '../analyse/aggregate.ts';
import { calibrate, type Calibration } from '../analyse/calibration.ts';
import { shippedCodeLoading, termModel, withFittedCoefficient } from '../analyse/code-loading.ts';
import { resolveCost, storedCost } from '../analyse/cost.ts';
import { MIN_FIT_POINTS, pickPhaseRoutes } from '../analyse/scaling.ts';
import { cellLabel, shownDimensions } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { targetKind } from '../core/kinds.ts';
import { ms } from '../core/format.ts';
import { readReferenceTable, ReferenceTableError, staleReferenceWarning, type ReferenceTable } from '../calibration/lambda-reference.ts';
import { CodeLoadingDataError, type CodeLoadingData } from '../calibration/lambda-code-loading.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import { chooseCalibration } from '../calibration/calibration-file.ts';
import { readMeta } from '../store/meta-file.ts';
import { refuseRunFolderLinks } from '../store/run-folder.ts';
import { HEADLINE_METRICS, SAMPLES_FILE, type SampleRecord } from '../core/samples.ts';
import { forEachSample, SamplesFileError } from '../store/samples-file.ts';
import {
  ATTRIBUTION_CHART,
  ATTRIBUTION_MD,
  attributionChart,
  attributionMarkdown,
  attributionSection,
  hasAttribution,
} from './attribution.ts';
import { curveChart, hasCurve, phasesChart } from './charts.ts';
import type { CsvColumn, ExtraColumn, MarkdownSection, Output, ReportContext, ReportSettings } from './contract.ts';
import { calibrationSection } from './calibration.ts';
import { calibrationCsvColumns } from './calibration-csv.ts';
import { costSection } from './cost-table.ts';
import { firstHitsOutput } from './first-hits.ts';
import { webFunctionsOutput } from './web-functions.ts';
import { crossCheckSection, processColumns, processCsvColumns } from './crosscheck.ts';
import { summaryCsv } from './csv.ts';
import { SCALING_CSV, scalingCsv } from './curve-md.ts';
import { HTML_REPORT, htmlReport } from './html.ts';
import { LEVERS_FILE, leversFile, leversSection, varyingLevers } from './levers.ts';
import { ANSWER_CHART, answerChart, answerMarkdown, answerSection, hasAnswerChart } from './answer.ts';
import { appsRun, runLoad, summaryMarkdown } from './markdown.ts';
import { estimateLoadWarning } from '../core/load.ts';
import { hasCounts, INSTRUCTIONS_CHART, instructionsChart, instructionsSection } from './instructions.ts';
import { lambdaSection } from './lambda.ts';
import { mergedSection } from './merged.ts';
import { hasPowerTuning, POWER_TUNING_CHART, powerTuningChart, powerTuningSection } from './power-tuning.ts';
import { precisionSection } from './precision.ts';
import { chartsSection, phasesSection, scalingMarkdown, scalingSection } from './scaling-md.ts';
import { isCounted } from '../core/dimensions.ts';
import { isLocalHandler } from '../core/kinds.ts';

/**
 * The console's one line for the outliers of a run (summary.md lists them cell by cell under Warnings):
 * how many cells, that the medians resist them, and where to read them.
 */
export function outliersLine(count: number, cells: number, summary: string): string {
  return (
    `outliers (MAD test) in ${count} of ${cells} cells; the medians resist them, rerun with more samples if they matter: ` +
    `see Warnings in ${summary}`
  );
}

/** A run whose curves against N have two points or more in some series. */
function curves(context: ReportContext): boolean {
  return hasCurve(context.summaries);
}

/** A run of generated route files (or an import of them), not of the user's own apps. */
function routed(context: ReportContext): boolean {
  return !appsRun(context.meta);
}

export const OUTPUTS: Output[] = [
  // runtime / build / compile cache / variant: a table per lever that varies, and the best lever per framework
  // build × compile cache × runtime: every variant per app, its Pareto front and what to change (also levers.md's first section)
  { file: ANSWER_CHART, when: hasAnswerChart, render: answerChart, section: answerSection },
  {
    file: LEVERS_FILE,
    // only when a lever varies (the README's table of outputs): a run of one runtime, build and cache has nothing to compare
    when: (context) => varyingLevers(context.summaries).length > 0,
    // `when` holds: a lever varies, so there is a table
    render: (context) => leversFile(context.summaries, context.meta, answerMarkdown(context, '###')) ?? '',
    section: ({ summaries, meta }) => leversSection(summaries, meta),
  },
  // --first-hits: first-hit columns beside firstResponse (summary.md, summary.csv) and their section
  firstHitsOutput,
  // lambda-web cells: INIT against Web Functions' 10 s, and what a cold start uses
  webFunctionsOutput,
  // hyperfine.json, when the folder has one: the process column and the cross-check section
  { section: crossCheckSection, columns: processColumns, csvColumns: processCsvColumns },
  // the curves against N: only where a series has two route counts or more (no log-log chart of one point)
  {
    file: 'chart-firstresponse.svg',
    when: curves,
    render: (context) => curveChart(context.summaries, 'firstResponse'),
    section: (context) => (curves(context) ? chartsSection() : undefined),
  },
  { file: 'chart-listen.svg', when: curves, render: (context) => curveChart(context.summaries, 'listen') },
  // the cost of a route: not for the user's own apps (measure), which have no route count
  {
    file: 'scaling.md',
    when: routed,
    render: scalingMarkdown,
    section: (context) => (routed(context) ? scalingSection(context) : undefined),
  },
  // the per-route cost as a fitted curve, a row per series and metric: every figure of scaling.md's curve tables
  { file: SCALING_CSV, when: routed, render: scalingCsv },
  { file: 'chart-phases.svg', render: (context) => phasesChart(context.summaries, context.phasesAt), section: phasesSection },
  // cells run at Lambda memory sizes: cost and cold start by size, the cheapest and the fastest within +10 %
  { file: POWER_TUNING_CHART, when: hasPowerTuning, render: powerTuningChart, section: powerTuningSection },
  // Lambda cells: their REPORT figures, and the adapter's cost beside the server
  { section: lambdaSection },
  // local Lambda cells: measured here, what Lambda adds (the reference's real cold starts), the estimate
  { section: calibrationSection, csvColumns: calibrationCsvColumns },
  // no file: the cost table in summary.md
  { section: costSection },
  // --samples auto: the samples each cell took and the precision it reached
  { section: precisionSection },
  // --attribute: where each cell's cold start goes, by package (from attribution.json)
  { file: ATTRIBUTION_MD, when: hasAttribution, render: attributionMarkdown, section: attributionSection },
  { file: ATTRIBUTION_CHART, when: hasAttribution, render: attributionChart },
  // counted cells: instructions per phase, beside the timed CPU and wall time, and their phase chart
  { file: INSTRUCTIONS_CHART, when: hasCounts, render: instructionsChart, section: instructionsSection },
  // a run joined by `merge`: the part each cell came from and its machine
  { section: mergedSection },
  // the page to open in a browser: the charts interactive, the tables sortable, vega inline (works offline)
  { file: HTML_REPORT, render: htmlReport },
];

/** One line per cell whose headline metrics have MAD outliers (|0.6745·(x − median)/MAD| > 3.5). */
export function outlierWarnings(summaries: CellSummary[]): string[] {
  return summaries.flatMap((s) => {
    const parts = HEADLINE_METRICS.flatMap((metric) => {
      const stats = s.metrics[metric];
      if (!stats || stats.outliers.length === 0) return [];
      return [
        `${metric} ${stats.outliers.length} of ${stats.n} ` +
          `(${stats.outliers.map((v) => `${ms(v)} ms`).join(', ')}; median ${ms(stats.median)} ms)`,
      ];
    });
    return parts.length
      ? [`outliers in ${cellLabel(s.cell)} (MAD test): ${parts.join('; ')}. Medians resist them; rerun with more samples if they matter.`]
      : [];
  });
}

function loadReferenceTable(file?: string): ReferenceTable {
  try {
    return file === undefined ? readReferenceTable() : readReferenceTable(file);
  } catch (error) {
    if (error instanceof ReferenceTableError) throw new UsageError(error.message);
    throw error;
  }
}

function loadCodeLoading(): CodeLoadingData {
  try {
    return shippedCodeLoading();
  } catch (error) {
    if (error instanceof CodeLoadingDataError) throw new UsageError(error.message);
    throw error;
  }
}

/** Read a run folder; a missing or broken samples.jsonl is a UsageError naming it. */
export function loadRun(dir: string, settings: ReportSettings = {}): ReportContext {
  const file = path.join(dir, SAMPLES_FILE);
  if (!existsSync(file)) throw new UsageError(`${file} does not exist: give a run folder (results/<run>)`);
  // read line by line into one column per figure and cell: a run folder may hold a million samples
  const aggregator = new Aggregator();
  const firstHitSamples: SampleRecord[] = [];
  let measured = 0;
  try {
    forEachSample(file, (sample) => {
      aggregator.add(sample);
      if (sample.phase === 'sample') measured++;
      if (sample.firstHits) firstHitSamples.push(sample);
    });
  } catch (error) {
    if (error instanceof SamplesFileError) throw new UsageError(error.message);
    throw error;
  }
  if (measured === 0) throw new UsageError(`${file} holds no sample: nothing to report`);
  const all = aggregator.summaries();
  const counted = all.filter((s) => isCounted(s.cell));
  const summaries = all.filter((s) => !isCounted(s.cell));
  const meta = readMeta(dir);
  const routes = [...new Set(all.map((s) => s.cell.routes))].sort((a, b) => a - b);
  if (settings.phasesAt !== undefined && !routes.includes(settings.phasesAt)) {
    throw new UsageError(`--phases-at: ${settings.phasesAt} is not a route count of this run (${routes.join(', ') || 'none'})`);
  }
  // --budget given to report overrides the run's (meta.json's)
  const budgetMs = settings.cost?.budgetMs ?? meta?.spec.cost.budgetMs;
  const routeCounts = new Set(summaries.map((s) => s.cell.routes)).size;
  if (settings.cost?.budgetMs !== undefined && routeCounts < MIN_FIT_POINTS) {
    throw new UsageError(
      `--budget does nothing without a curve to read it from: this run's timed cells have ${routeCounts} ` +
        `route count(s), a fit needs ${MIN_FIT_POINTS}: leave it out`,
    );
  }
  const cost = resolveCost(settings.cost, storedCost(meta?.spec.cost));
  const hasEstimates = summaries.some((s) => isLocalHandler(s.cell.target) && s.lambda);
  // --calibration given now, else the run's own (meta.json), else the shipped table; a note when it is not the run's
  const chosen = hasEstimates ? chooseCalibration(settings.calibrationFile, meta?.calibration, process.cwd()) : {};
  const reference = hasEstimates ? loadReferenceTable(chosen.file) : undefined;
  const codeLoading = reference ? loadCodeLoading() : undefined;
  const calibrations = reference
    ? cost.architectures.map((architecture) => ({
        architecture,
        calibration: calibrate(
          summaries,
          reference,
          architecture,
          cpuSpeedsOf(meta?.lambda),
          // a table lambda:calibrate refitted k for carries its own (withFittedCoefficient)
          codeLoading ? withFittedCoefficient(termModel(codeLoading), reference.codeLoading) : undefined,
        ),
      }))
    : [];
  const referenceWarning = reference ? staleReferenceWarning(reference, meta?.startedAt) : undefined;
  const loadWarning = calibrations.some((c) => c.calibration.size > 0) ? estimateLoadWarning(runLoad(meta)) : undefined;
  return {
    dir,
    firstHitSamples,
    summaries,
    counted,
    meta,
    cost,
    calibration: calibrations[0]?.calibration ?? new Map<string, Calibration>(),
    calibrations,
    ...(reference ? { reference } : {}),
    ...(codeLoading ? { codeLoading } : {}),
    ...(referenceWarning ? { referenceWarning } : {}),
    ...(chosen.used ? { calibrationFile: chosen.used } : {}),
    ...(chosen.note ? { calibrationNote: chosen.note } : {}),
    ...(loadWarning ? { loadWarning } : {}),
    ...(budgetMs !== undefined ? { budgetMs } : {}),
    phasesAt: settings.phasesAt ?? pickPhaseRoutes(all),
    warnings: outlierWarnings(summaries),
  };
}

/** A written report: the files, and what they were computed from (its summaries serve the export: nobody reads the run twice). */
export interface WrittenReport {
  written: string[];
  context: ReportContext;
}

/**
 * Write every output and summary.md from one reading of the run folder; returns the files written and
 * that reading. Charts render asynchronously (vega).
 */
export async function writeReport(dir: string, settings: ReportSettings = {}): Promise<WrittenReport> {
  // a link where the report writes is refused before anything is read or written
  refuseRunFolderLinks(dir, 'report');
  const context = loadRun(dir, settings);
  if (settings.cost?.webRates && !context.summaries.some((s) => targetKind(s.cell.target).caps))
    throw new UsageError('--price-file, --web-*-price do nothing without a Lambda Web Functions cell (--target lambda-web) in the run');
  const csvColumns: CsvColumn[] = OUTPUTS.flatMap((output) => output.csvColumns?.(context) ?? []);
  writeOwnedFile(
    dir,
    'summary.csv',
    summaryCsv(
      [...context.summaries, ...context.counted],
      (s) => cellLabel(s.cell),
      csvColumns,
      shownDimensions,
      context.meta?.timeEstimate,
    ),
  );
  const written: string[] = ['summary.csv'];
  const sections: MarkdownSection[] = [];
  const columns: ExtraColumn[] = [];
  for (const output of OUTPUTS) {
    if (output.file && output.render && (output.when?.(context) ?? true)) {
      writeOwnedFile(dir, output.file, await output.render(context));
      written.push(output.file);
    }
    const section = output.section?.(context);
    if (section) sections.push(section);
    columns.push(...(output.columns?.(context) ?? []));
  }
  writeOwnedFile(dir, 'summary.md', summaryMarkdown(context.summaries, context.meta, sections, columns, context.warnings));
  written.push('summary.md');
  if (context.referenceWarning) settings.warn?.(context.referenceWarning);
  if (context.calibrationNote) settings.warn?.(context.calibrationNote);
  if (context.loadWarning) settings.warn?.(context.loadWarning);
  // the console gets one line for every cell's outliers; summary.md's Warnings has them cell by cell
  if (context.warnings.length) {
    const cells = context.summaries.filter((s) => !s.unsupported).length;
    settings.warn?.(outliersLine(context.warnings.length, cells, path.join(dir, 'summary.md')));
  }
  return { written, context };
}
