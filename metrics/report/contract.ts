/**
 * The report contract: what every output receives (the run's context) and what it may give back
 * (a file, a section of summary.md, columns of its results table or of summary.csv). The
 * orchestrator (write.ts) and every output import this module; it imports none of them.
 */
import type { CellSummary } from '../analyse/aggregate.ts';
import type { Calibration } from '../analyse/calibration.ts';
import type { ReferenceTable } from '../calibration/lambda-reference.ts';
import type { CodeLoadingData } from '../calibration/lambda-code-loading.ts';
import type { Architecture } from '../core/lambda-platform.ts';
import type { CostOptions, CostSettings } from '../analyse/cost.ts';
import type { Align } from '../core/format.ts';
import type { CalibrationMeta, RunMeta } from '../core/meta.ts';
import type { SampleRecord } from '../core/samples.ts';

export interface ReportContext {
  dir: string;
  /** the samples with first hits (runs with --first-hits); a report holds no other sample one by one */
  firstHitSamples: SampleRecord[];
  /** the timed cells (every cell of a run without counted ones) */
  summaries: CellSummary[];
  /** the counted cells (measure `instructions`): their wall times ran under valgrind, so only their own section shows them */
  counted: CellSummary[];
  meta: RunMeta | undefined;
  /** the cost model: the report's flags over meta.json's spec over the defaults */
  cost: CostSettings;
  /** the route count the phase chart shows; undefined when the run has no cell */
  phasesAt: number | undefined;
  /** one line per cell with MAD outliers; summary.md lists them, run and report print a few on stderr */
  warnings: string[];
  /** local Lambda cells: cellKey → the estimate on Lambda and what it is derived from (empty without Lambda cells), first architecture */
  calibration: Map<string, Calibration>;
  /** the same for every architecture the report estimates (cost.architectures, in order; the first is `calibration`) */
  calibrations: ArchitectureCalibration[];
  /** the calibration table, when the run has local Lambda cells */
  reference?: ReferenceTable;
  /** the code-loading term's data and fit (calibration/lambda-code-loading.json), when the run has local Lambda cells */
  codeLoading?: CodeLoadingData;
  /** the route budget in ms (--budget on report, else the run's, from meta.json): the curves say how many routes fit within it */
  budgetMs?: number;
  /** the table's data ended more than a quarter before the run (meta.json's startedAt): summary.md and the console say so */
  referenceWarning?: string;
  /** --calibration (given now, or the run's from meta.json): the file that made the estimates */
  calibrationFile?: CalibrationMeta;
  /** the estimates do not use the calibration the run's did (another given, or the run's missing or changed) */
  calibrationNote?: string;
  /** the run's Lambda estimates were made under more load than they are stated for (core/load.ts): every output marks them */
  loadWarning?: string;
}

/** The calibration of a run's local Lambda cells for one architecture. */
export interface ArchitectureCalibration {
  architecture: Architecture;
  calibration: Map<string, Calibration>;
}

/** What `report` (and `run`) can ask of a report beyond the run folder. */
export interface ReportSettings {
  /** cost flags given now; they override what the run stored in meta.json */
  cost?: CostOptions;
  /** the route count of chart-phases.svg (--phases-at); must be one the run measured */
  phasesAt?: number;
  /** where the warnings go besides summary.md */
  warn?: (line: string) => void;
  /** --calibration: a calibration table (lambda:calibrate's, or one of the shipped format) instead of the shipped one */
  calibrationFile?: string;
}

/** A section of summary.md. */
export interface MarkdownSection {
  title: string;
  body: string;
}

/** A column an output adds to summary.md's results table (for example hyperfine's process time). */
export interface ExtraColumn {
  header: string;
  value(summary: CellSummary): string;
  align?: Align;
}

/** A column an output adds at the end of summary.csv. */
export interface CsvColumn {
  header: string;
  value(summary: CellSummary): string | number;
}

/** One output of a report; it may write a file, add a section, add columns, or several of these. */
export interface Output {
  /** the file this output writes into the run folder */
  file?: string;
  /** write the file only for runs this says yes to (default: every run) */
  when?(context: ReportContext): boolean;
  render?(context: ReportContext): string | Promise<string>;
  /** a section this output adds to summary.md (for example a link or a table) */
  section?(context: ReportContext): MarkdownSection | undefined;
  /** columns this output adds to summary.md's results table */
  columns?(context: ReportContext): ExtraColumn[];
  /** columns this output adds to summary.csv */
  csvColumns?(context: ReportContext): CsvColumn[];
}
