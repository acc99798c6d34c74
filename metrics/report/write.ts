/**
 * A run folder's artefacts, all rebuilt from samples.jsonl (and meta.json when present): every
 * output format is one entry in OUTPUTS, so `npm run report -- DIR` and a live run write the same.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { aggregate, type CellSummary } from '../analyse/aggregate.ts';
import { cellLabel } from '../core/cell.ts';
import { resolveCost, storedCost, type CostOptions, type CostSettings } from '../analyse/cost.ts';
import { UsageError } from '../core/errors.ts';
import { readMeta, type RunMeta } from '../core/meta.ts';
import { crossCheckSection, processColumns, processCsvColumns } from './crosscheck.ts';
import { curveChart, phasesChart } from './charts.ts';
import { costSection } from './cost-table.ts';
import { summaryCsv } from './csv.ts';
import { LEVERS_FILE, leversFile, leversSection } from './levers.ts';
import { summaryMarkdown, type ExtraColumn, type MarkdownSection } from './markdown.ts';
import { chartsSection, phasesSection, scalingMarkdown, scalingSection } from './scaling-md.ts';
import { HEADLINE_METRICS, readSamples, SamplesFileError, type SampleRecord } from '../core/samples.ts';
import { pickPhaseRoutes } from '../analyse/scaling.ts';
import { ms } from '../core/format.ts';

export const SAMPLES_FILE = 'samples.jsonl';

export interface ReportContext {
  dir: string;
  samples: SampleRecord[];
  summaries: CellSummary[];
  meta: RunMeta | undefined;
  /** the cost model: the report's flags over meta.json's options over the defaults */
  cost: CostSettings;
  /** the route count the phase chart shows; undefined when the run has no cell */
  phasesAt: number | undefined;
  /** one line per cell with MAD outliers; summary.md lists them, run and report print them on stderr */
  warnings: string[];
}

/** What `report` (and `run`) can ask of a report beyond the run folder. */
export interface ReportSettings {
  /** cost flags given now; they override what the run stored in meta.json */
  cost?: CostOptions;
  /** the route count of chart-phases.svg (--phases-at); must be one the run measured */
  phasesAt?: number;
  /** where the warnings go besides summary.md */
  warn?: (line: string) => void;
}

export interface Output {
  /** the file this output writes into the run folder; an output may only add a section or columns */
  file?: string;
  render?(context: ReportContext): string | Promise<string>;
  /** a section this output adds to summary.md (for example a link or a table) */
  section?(context: ReportContext): MarkdownSection | undefined;
  /** columns this output adds to summary.md's results table */
  columns?(context: ReportContext): ExtraColumn[];
}

export const OUTPUTS: Output[] = [
  { file: 'summary.csv', render: (context) => summaryCsv(context.summaries, (s) => cellLabel(s.cell), processCsvColumns(context)) },
  // runtime / build / compile cache / variant: a table per lever that varies, and the best lever per framework
  { file: LEVERS_FILE, render: ({ summaries, meta }) => leversFile(summaries, meta), section: ({ summaries, meta }) => leversSection(summaries, meta) },
  // hyperfine.json, when the folder has one: the process column and the cross-check section
  { section: crossCheckSection, columns: processColumns },
  { file: 'chart-firstresponse.svg', render: (context) => curveChart(context.summaries, 'firstResponse'), section: chartsSection },
  { file: 'chart-listen.svg', render: (context) => curveChart(context.summaries, 'listen') },
  { file: 'scaling.md', render: scalingMarkdown, section: scalingSection },
  { file: 'chart-phases.svg', render: (context) => phasesChart(context.summaries, context.phasesAt), section: phasesSection },
  // no file: the cost table in summary.md
  { section: costSection },
];

/** One line per cell whose headline metrics have MAD outliers (|0.6745·(x − median)/MAD| > 3.5). */
export function outlierWarnings(summaries: CellSummary[]): string[] {
  return summaries.flatMap((s) => {
    const parts = HEADLINE_METRICS.flatMap((metric) => {
      const stats = s.metrics[metric];
      if (!stats || stats.outliers.length === 0) return [];
      return [`${metric} ${stats.outliers.length} of ${stats.n} (${stats.outliers.map((v) => `${ms(v)} ms`).join(', ')}; median ${ms(stats.median)} ms)`];
    });
    return parts.length ? [`outliers in ${cellLabel(s.cell)} (MAD test): ${parts.join('; ')}. Medians resist them; rerun with more samples if they matter.`] : [];
  });
}

/** Read a run folder; a missing or broken samples.jsonl is a UsageError naming it. */
export function loadRun(dir: string, settings: ReportSettings = {}): ReportContext {
  const file = path.join(dir, SAMPLES_FILE);
  if (!existsSync(file)) throw new UsageError(`${file} does not exist: give a run folder (results/<run>)`);
  let samples: SampleRecord[];
  try {
    samples = readSamples(file);
  } catch (error) {
    if (error instanceof SamplesFileError) throw new UsageError(error.message);
    throw error;
  }
  const summaries = aggregate(samples);
  const meta = readMeta(dir);
  const routes = [...new Set(summaries.map((s) => s.cell.routes))].sort((a, b) => a - b);
  if (settings.phasesAt !== undefined && !routes.includes(settings.phasesAt)) {
    throw new UsageError(`--phases-at: ${settings.phasesAt} is not a route count of this run (${routes.join(', ') || 'none'})`);
  }
  return {
    dir,
    samples,
    summaries,
    meta,
    cost: resolveCost(settings.cost, storedCost(meta?.options)),
    phasesAt: settings.phasesAt ?? pickPhaseRoutes(summaries),
    warnings: outlierWarnings(summaries),
  };
}

/** Write every output and summary.md; returns the files written. Charts render asynchronously (vega). */
export async function writeReport(dir: string, settings: ReportSettings = {}): Promise<string[]> {
  const context = loadRun(dir, settings);
  const written: string[] = [];
  const sections: MarkdownSection[] = [];
  const columns: ExtraColumn[] = [];
  for (const output of OUTPUTS) {
    if (output.file && output.render) {
      writeFileSync(path.join(dir, output.file), await output.render(context));
      written.push(output.file);
    }
    const section = output.section?.(context);
    if (section) sections.push(section);
    columns.push(...(output.columns?.(context) ?? []));
  }
  writeFileSync(path.join(dir, 'summary.md'), summaryMarkdown(context.summaries, context.meta, sections, columns, context.warnings));
  written.push('summary.md');
  for (const line of context.warnings) settings.warn?.(line);
  return written;
}
