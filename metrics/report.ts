/**
 * A run folder's artefacts, all rebuilt from samples.jsonl (and meta.json when present): every
 * output format is one entry in OUTPUTS, so `npm run report -- DIR` and a live run write the same.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { aggregate, type CellSummary } from './aggregate.ts';
import { cellLabel } from './cell.ts';
import { UsageError } from './errors.ts';
import { readMeta, type RunMeta } from './meta.ts';
import { summaryCsv } from './output/csv.ts';
import { summaryMarkdown, type ExtraColumn, type MarkdownSection } from './output/markdown.ts';
import { readSamples, SamplesFileError, type SampleRecord } from './samples.ts';

export const SAMPLES_FILE = 'samples.jsonl';

export interface ReportContext {
  dir: string;
  samples: SampleRecord[];
  summaries: CellSummary[];
  meta: RunMeta | undefined;
}

export interface Output {
  file: string;
  render(context: ReportContext): string;
  /** a section this output adds to summary.md (for example a link or a table) */
  section?(context: ReportContext): MarkdownSection | undefined;
  /** columns this output adds to summary.md's results table */
  columns?(context: ReportContext): ExtraColumn[];
}

export const OUTPUTS: Output[] = [
  { file: 'summary.csv', render: ({ summaries }) => summaryCsv(summaries, (s) => cellLabel(s.cell)) },
];

/** Read a run folder; a missing or broken samples.jsonl is a UsageError naming it. */
export function loadRun(dir: string): ReportContext {
  const file = path.join(dir, SAMPLES_FILE);
  if (!existsSync(file)) throw new UsageError(`${file} does not exist: give a run folder (results/<run>)`);
  let samples: SampleRecord[];
  try {
    samples = readSamples(file);
  } catch (error) {
    if (error instanceof SamplesFileError) throw new UsageError(error.message);
    throw error;
  }
  return { dir, samples, summaries: aggregate(samples), meta: readMeta(dir) };
}

/** Write every output and summary.md; returns the files written. */
export function writeReport(dir: string): string[] {
  const context = loadRun(dir);
  const written: string[] = [];
  const sections: MarkdownSection[] = [];
  const columns: ExtraColumn[] = [];
  for (const output of OUTPUTS) {
    writeFileSync(path.join(dir, output.file), output.render(context));
    written.push(output.file);
    const section = output.section?.(context);
    if (section) sections.push(section);
    columns.push(...(output.columns?.(context) ?? []));
  }
  writeFileSync(path.join(dir, 'summary.md'), summaryMarkdown(context.summaries, context.meta, sections, columns));
  written.push('summary.md');
  return written;
}
