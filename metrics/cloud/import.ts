/**
 * Files of CloudWatch REPORT lines in, sample records out. Each file is plain text (log lines), or a
 * Logs Insights export in CSV or JSON; the extension decides (.csv, .json), else the content does.
 *
 * Which cell a report belongs to comes from its function's name (core/function-name.ts): the log group
 * the export names (`@log`), else `--function`, else a function name inside the file's name. A report
 * whose function is unknown, or not named like a packaged cell, is an issue, as is a request id read
 * twice (overlapping exports) and every line that does not parse. Issues are counted and named
 * (the first MAX_KEPT_ISSUES of them kept with their reason); nothing is dropped silently.
 *
 * Plain-text files are read line by line in bounded memory (a line over MAX_LOG_LINE is skipped and
 * counted): only cold starts are kept (they become samples), as a few numbers each in the columns of
 * cold-starts.ts, not an object per record; warm invocations and SnapStart restores are counted, not
 * kept, and so not checked for duplicates. The records are made one at a time when asked for
 * (ImportedRun.records). An INIT_REPORT (or `platform.initReport`) with a failed Status is a failed
 * cold start of its function, at the memory size the function's REPORT lines give. Logs Insights
 * exports (CSV, JSON) are read whole, up to MAX_EXPORT_BYTES: Insights returns at most 10,000 rows
 * per query.
 *
 * A whole file that cannot be read, or is not the format its name says, is a UsageError.
 */
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { readLinesBounded, readTextBounded } from '../store/input-files.ts';
import { functionInFileName, parseFunctionName, type FunctionCell } from '../core/function-name.ts';
import { ExportFormatError, parseInsightsCsv, parseInsightsJson } from './insights.ts';
import { addLineItem, parseLogLine, type LineItem } from './log-line.ts';
import { ColdStarts, ordinals, type Ordinals } from './cold-starts.ts';
import { AWS_LAMBDA_TARGET, initFailureRecord, lambdaSampleRecord, type AwsLambdaSampleRecord } from './records.ts';
import {
  formatIssue,
  formatSource,
  type ParsedReports,
  type ReportIssue,
  type SourcedInitFailure,
  type SourcedReport,
} from './report-lines.ts';
import type { Architecture } from '../core/lambda-platform.ts';

export type ReportFormat = 'text' | 'csv' | 'json';

export interface ImportOptions {
  /** the function every report without a log group of its own belongs to */
  functionName?: string;
  /** the architecture the functions ran on, recorded with each sample (REPORT lines do not say) */
  architecture?: Architecture;
  /** `at` for reports without a timestamp; default: now */
  importedAt?: string;
}

/** What an import read, counted. */
export interface ImportCounts {
  /** REPORT lines read: cold starts (with Init Duration) and warm invocations */
  coldStarts: number;
  warmStarts: number;
  /** REPORT lines of SnapStart restores (Restore Duration, no Init Duration): neither warm nor an INIT */
  restores: number;
  /** INIT_REPORT lines with a failed Status: failed cold starts (records with ok false) */
  failedInits: number;
  /** lines or rows that are not REPORT lines (START, END, function output), the overlong ones included */
  ignored: number;
  /** lines longer than MAX_LOG_LINE, skipped (counted in `ignored` too) */
  overlong: number;
  /** the first MAX_KEPT_ISSUES REPORT lines or rows that gave no record, with where and why */
  issues: ReportIssue[];
  /** how many gave no record in all */
  issueCount: number;
}

/** One cell of an import: a function at one memory size, and how many records it has. */
export interface ImportedCell {
  functionName: string;
  cell: FunctionCell;
  memory: number;
  samples: number;
}

/** An import read: its counts, its cells (in report order), and its records made one at a time. */
export interface ImportedRun extends ImportCounts {
  cells: ImportedCell[];
  /** how many records `records()` gives */
  samples: number;
  /** the earliest and latest time a record was logged, when the input says */
  logged: { first: string; last: string } | undefined;
  /** the records, grouped by cell, each cell in the order they were logged; made as they are asked for */
  records: () => Generator<AwsLambdaSampleRecord>;
}

export interface ImportResult extends Omit<ImportedRun, 'records' | 'logged'> {
  /** one per cold start, grouped by cell, in the order they were logged */
  records: AwsLambdaSampleRecord[];
}

/** Issues kept with their reason; beyond them only counted, so a file of unreadable lines stays small in memory. */
export const MAX_KEPT_ISSUES = 1000;

const INSIGHTS_HEADER = /^\uFEFF?"?@?(timestamp|message|requestId|log|duration|type)"?\s*,/;

/** Whether the first line is one event of the JSON log format (a file of them is read line by line, as text). */
function jsonLines(text: string): boolean {
  const first = text.trimStart().split('\n', 1)[0] ?? '';
  try {
    const value: unknown = JSON.parse(first);
    return value !== null && typeof value === 'object' && !Array.isArray(value) && 'type' in value && 'time' in value;
  } catch {
    return false;
  }
}

export function detectFormat(file: string, text: string): ReportFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.json') return jsonLines(text) ? 'text' : 'json';
  const start = text.trimStart();
  if (start.startsWith('[')) return 'json';
  if (start.startsWith('{')) return jsonLines(text) ? 'text' : 'json';
  return INSIGHTS_HEADER.test(start) ? 'csv' : 'text';
}

function cannotRead(file: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  return new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}

/**
 * Insights exports are read whole: a query returns at most 10,000 rows (a REPORT row is under 1 KiB),
 * so an export larger than this is not one.
 */
export const MAX_EXPORT_BYTES = 64 * 2 ** 20;
/**
 * A line of a plain-text log longer than this is skipped and counted: no REPORT line is (they are
 * under 1 KiB), and CloudWatch's largest log event is 1 MB, so it is the function's own output or
 * not a log at all.
 */
export const MAX_LOG_LINE = 2 ** 20;
/** How much of a file tells its format. */
const FORMAT_PREFIX_BYTES = 64 * 1024;

function readExport(file: string, format: 'csv' | 'json'): ParsedReports {
  let text: string;
  try {
    text = readTextBounded(file, MAX_EXPORT_BYTES, 'a Logs Insights export');
  } catch (error) {
    throw cannotRead(file, error);
  }
  try {
    return format === 'csv' ? parseInsightsCsv(text, file) : parseInsightsJson(text, file);
  } catch (error) {
    if (error instanceof ExportFormatError) throw new UsageError(error.message);
    throw error;
  }
}

function formatOf(file: string): ReportFormat {
  let start: string;
  try {
    // only the start: a text file may be gigabytes
    start = readTextBounded(file, FORMAT_PREFIX_BYTES, 'a file of REPORT lines', { prefix: true });
  } catch (error) {
    throw cannotRead(file, error);
  }
  return detectFormat(file, start);
}

/** Every line of a plain-text log, in bounded memory; an overlong line is skipped and counted. */
function readLogFile(file: string, each: (item: LineItem) => void, skipped: () => void): void {
  try {
    readLinesBounded(file, 'a file of REPORT lines', { maxLine: MAX_LOG_LINE, overlong: 'skip', skipped }, (line, number) => {
      const item = parseLogLine(line, { file, line: number });
      if (item) each(item);
    });
  } catch (error) {
    throw cannotRead(file, error);
  }
}

/** Read and parse one whole file (tests, small files); UsageError when it cannot be read or is not the format it claims. */
export function readReportFile(file: string): ParsedReports & { format: ReportFormat } {
  const format = formatOf(file);
  if (format !== 'text') return { format, ...readExport(file, format) };
  const parsed: ParsedReports = { reports: [], initFailures: [], issues: [], ignored: 0 };
  readLogFile(
    file,
    (item) => addLineItem(parsed, item),
    () => parsed.ignored++,
  );
  return { format, ...parsed };
}

function checkFunctionOption(name: string | undefined): void {
  if (name !== undefined && !parseFunctionName(name)) {
    throw new UsageError(`--function ${JSON.stringify(name)} is not a packaged function name (coldstart-<framework>-<routes>-<variant>)`);
  }
}

type Assigned = { ok: true; name: string; cell: FunctionCell } | { ok: false; reason: string };

function assignFunction(item: { functionName?: string; source: { file: string } }, options: ImportOptions): Assigned {
  const fromFile = functionInFileName(path.basename(item.source.file));
  if (item.functionName !== undefined && options.functionName !== undefined && item.functionName !== options.functionName) {
    return { ok: false, reason: `logged by ${item.functionName}, not by --function ${options.functionName}` };
  }
  const name = item.functionName ?? options.functionName ?? fromFile;
  if (name === undefined) {
    return { ok: false, reason: 'no function name: no log group in the data, no --function, none in the file name' };
  }
  const cell = parseFunctionName(name);
  if (!cell) return { ok: false, reason: `function ${name} is not named coldstart-<framework>-<routes>-<variant>` };
  return { ok: true, name, cell };
}

type Group = {
  name: string;
  cell: FunctionCell;
  memory: number;
  /** ordinals of its cold starts, in the order read */
  coldStarts: Ordinals;
  failedInits: SourcedInitFailure[];
  /** whether every cold start and failed INIT of it says when it was logged */
  timed: boolean;
};

function compareGroups(a: Group, b: Group): number {
  return (
    a.cell.framework.localeCompare(b.cell.framework) ||
    a.cell.variant.localeCompare(b.cell.variant) ||
    a.cell.routes - b.cell.routes ||
    a.memory - b.memory
  );
}

/**
 * Reports, failed INITs and issues in, one at a time (each file's in the order of its lines or
 * records); counts and cells out, and the records made one at a time. Memory grows with the cold
 * starts only, by a few numbers and the request id each.
 */
export class ImportCollector {
  private readonly counts: ImportCounts = {
    coldStarts: 0,
    warmStarts: 0,
    restores: 0,
    failedInits: 0,
    ignored: 0,
    overlong: 0,
    issues: [],
    issueCount: 0,
  };
  private readonly cold = new ColdStarts();
  private readonly groups = new Map<string, Group>();
  /** failed INITs wait for their function's memory size, which only REPORT lines state */
  private readonly pendingInits: { name: string; cell: FunctionCell; init: SourcedInitFailure }[] = [];
  private readonly memories = new Map<string, Set<number>>();
  /** the function of a file and logged name: the same for every line of a file */
  private readonly functions = new Map<string, Assigned>();

  constructor(private readonly options: ImportOptions) {
    checkFunctionOption(options.functionName);
  }

  issue(issue: ReportIssue): void {
    this.counts.issueCount++;
    if (this.counts.issues.length < MAX_KEPT_ISSUES) this.counts.issues.push(issue);
  }

  ignored(count = 1): void {
    this.counts.ignored += count;
  }

  /** A line longer than MAX_LOG_LINE, skipped. */
  overlong(): void {
    this.counts.overlong++;
    this.counts.ignored++;
  }

  private assign(item: { functionName?: string; source: { file: string } }): Assigned {
    const key = `${item.functionName ?? ''}\u0000${item.source.file}`;
    let assigned = this.functions.get(key);
    if (!assigned) {
      assigned = assignFunction(item, this.options);
      this.functions.set(key, assigned);
    }
    return assigned;
  }

  report(report: SourcedReport): void {
    const assigned = this.assign(report);
    if (!assigned.ok) {
      this.issue({ source: report.source, reason: assigned.reason });
      return;
    }
    const memories = this.memories.get(assigned.name) ?? new Set<number>();
    memories.add(report.memorySizeMB);
    this.memories.set(assigned.name, memories);
    if (report.initMs === undefined) {
      // warm invocations and restores are counted, not kept (a file may hold millions)
      if (report.restoreMs !== undefined) this.counts.restores++;
      else this.counts.warmStarts++;
      return;
    }
    const ordinal = this.cold.add(report, report.initMs, assigned.name);
    if (typeof ordinal !== 'number') {
      this.issue({
        source: report.source,
        reason: `request ${report.requestId} was already read at ${formatSource(this.cold.source(ordinal.repeated))}`,
      });
      return;
    }
    this.counts.coldStarts++;
    const group = this.group(assigned.name, assigned.cell, report.memorySizeMB);
    group.coldStarts.push(ordinal);
    if (report.timestamp === undefined) group.timed = false;
  }

  initFailure(init: SourcedInitFailure): void {
    const assigned = this.assign(init);
    if (!assigned.ok) {
      this.issue({ source: init.source, reason: assigned.reason });
      return;
    }
    this.pendingInits.push({ name: assigned.name, cell: assigned.cell, init });
  }

  /** A file parsed whole (an Insights export): its items in the order of their rows. */
  parsed(file: ParsedReports): void {
    this.ignored(file.ignored);
    const position = (source: { line?: number; record?: number }) => source.line ?? source.record ?? 0;
    const items = [
      ...file.reports.map((report) => ({ at: position(report.source), add: () => this.report(report) })),
      ...file.initFailures.map((init) => ({ at: position(init.source), add: () => this.initFailure(init) })),
      ...file.issues.map((issue) => ({ at: position(issue.source), add: () => this.issue(issue) })),
    ].sort((a, b) => a.at - b.at);
    for (const item of items) item.add();
  }

  private group(name: string, cell: FunctionCell, memory: number): Group {
    const key = `${name} ${memory}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { name, cell, memory, coldStarts: ordinals(), failedInits: [], timed: true };
      this.groups.set(key, group);
    }
    return group;
  }

  /** Failed INITs into the group of their function's one memory size; an issue when it has none or several. */
  private placeInits(): void {
    for (const { name, cell, init } of this.pendingInits) {
      const memories = [...(this.memories.get(name) ?? [])];
      if (memories.length !== 1) {
        const what = `INIT_REPORT Status: ${init.status} of ${name}`;
        this.issue({
          source: init.source,
          reason:
            memories.length === 0
              ? `${what}, whose memory size no REPORT line gives`
              : `${what}, which ran at several memory sizes (${memories.join(', ')} MB): which one is unknown`,
        });
        continue;
      }
      this.counts.failedInits++;
      const group = this.group(name, cell, memories[0]!);
      group.failedInits.push(init);
      if (init.timestamp === undefined) group.timed = false;
    }
    this.pendingInits.length = 0;
  }

  finish(): ImportedRun {
    this.placeInits();
    const groups = [...this.groups.values()].sort(compareGroups);
    const { cold, options } = this;
    const importedAt = options.importedAt ?? new Date().toISOString();
    // a cold start is its ordinal (≥ 0), a failed INIT -(its index + 1)
    const timeOf = (group: Group, item: number) =>
      item >= 0 ? cold.timeOf(item) : Date.parse(group.failedInits[-item - 1]!.timestamp ?? '');
    const order = (group: Group): Int32Array => {
      const { length } = group.coldStarts;
      const items = new Int32Array(length + group.failedInits.length);
      items.set(group.coldStarts.view(0, length));
      group.failedInits.forEach((_, i) => (items[length + i] = -i - 1));
      // in the order they were logged when every report says when (Insights exports newest first); else as read
      if (!group.timed) return items;
      // ties as read: cold starts by ordinal, then the failed INITs in their order
      const asRead = (a: number, b: number) => (a >= 0 && b >= 0 ? a - b : a >= 0 ? -1 : b >= 0 ? 1 : b - a);
      return items.sort((a, b) => timeOf(group, a) - timeOf(group, b) || asRead(a, b));
    };
    function* records(): Generator<AwsLambdaSampleRecord> {
      for (const group of groups) {
        let index = 0;
        for (const item of order(group)) {
          const context = {
            functionName: group.name,
            index: ++index,
            importedAt,
            ...(options.architecture ? { architecture: options.architecture } : {}),
          };
          yield item >= 0
            ? lambdaSampleRecord(cold.report(item, group.memory), group.cell, context)
            : initFailureRecord(group.failedInits[-item - 1]!, group.cell, group.memory, context);
        }
      }
    }
    return {
      ...this.counts,
      cells: groups.map((g) => ({
        functionName: g.name,
        cell: g.cell,
        memory: g.memory,
        samples: g.coldStarts.length + g.failedInits.length,
      })),
      samples: groups.reduce((sum, g) => sum + g.coldStarts.length + g.failedInits.length, 0),
      logged: this.loggedSpan(groups),
      records,
    };
  }

  /** When the imported cold starts were logged: the earliest and latest time the input gave (none → undefined). */
  private loggedSpan(groups: Group[]): { first: string; last: string } | undefined {
    let first = Infinity;
    let last = -Infinity;
    const see = (time: number) => {
      if (Number.isNaN(time)) return;
      first = Math.min(first, time);
      last = Math.max(last, time);
    };
    for (const group of groups) {
      for (let i = 0; i < group.coldStarts.length; i++) see(this.cold.timeOf(group.coldStarts.at(i)));
      for (const init of group.failedInits) see(Date.parse(init.timestamp ?? ''));
    }
    return first <= last ? { first: new Date(first).toISOString(), last: new Date(last).toISOString() } : undefined;
  }
}

/** Read every file (text line by line, exports whole) into a collector: counts, cells, and records made on demand. */
export function readImport(files: string[], options: ImportOptions = {}): ImportedRun {
  if (files.length === 0) throw new UsageError('no files to import: give one or more files of REPORT lines');
  const collector = new ImportCollector(options);
  for (const file of files) {
    const format = formatOf(file);
    if (format !== 'text') {
      collector.parsed(readExport(file, format));
      continue;
    }
    readLogFile(
      file,
      (item) => {
        if (item.kind === 'report') collector.report(item.report);
        else if (item.kind === 'init') collector.initFailure(item.init);
        else if (item.kind === 'issue') collector.issue(item.issue);
        else collector.ignored();
      },
      () => collector.overlong(),
    );
  }
  return collector.finish();
}

/** An import with its records in one array (tests, small inputs). */
export function importReports(files: string[], options: ImportOptions = {}): ImportResult {
  const { logged: _logged, records, ...rest } = readImport(files, options);
  return { ...rest, records: [...records()] };
}

/** What an import read, for the terminal: a summary line, then the issues (the first `maxIssues` of them). */
export function describeImport(result: ImportCounts & { samples: number; cells: readonly ImportedCell[] }, maxIssues = 10): string[] {
  const cells = result.cells.length;
  const restores = result.restores ? `, ${result.restores} SnapStart restores (not samples: no INIT)` : '';
  const overlong = result.overlong ? ` (${result.overlong} longer than ${MAX_LOG_LINE / 2 ** 20} MB, skipped)` : '';
  const inits = result.failedInits ? `; ${result.failedInits} failed INITs (INIT_REPORT), samples that failed` : '';
  const lines = [
    `${result.coldStarts + result.warmStarts + result.restores} REPORT lines read: ${result.coldStarts} cold starts ` +
      `(${result.samples} samples with target ${AWS_LAMBDA_TARGET} in ${cells} cell${cells === 1 ? '' : 's'}), ` +
      `${result.warmStarts} warm invocations (not samples)${restores}${inits}; ` +
      `${result.ignored} other lines ignored${overlong}; ` +
      `${result.issueCount} not imported`,
  ];
  for (const issue of result.issues.slice(0, maxIssues)) lines.push(`  ${formatIssue(issue)}`);
  if (result.issueCount > maxIssues) lines.push(`  … and ${result.issueCount - maxIssues} more`);
  return lines;
}
