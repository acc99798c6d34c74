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
 * Plain-text files are read line by line in bounded memory (log-line.ts): only cold starts are kept
 * (they become samples); warm invocations and SnapStart restores are counted, not kept, and so not
 * checked for duplicates. An INIT_REPORT (or `platform.initReport`) with a failed Status is a failed
 * cold start of its function, at the memory size the function's REPORT lines give. Logs Insights
 * exports (CSV, JSON) are read whole: Insights returns at most 10,000 rows per query.
 *
 * A whole file that cannot be read, or is not the format its name says, is a UsageError.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { functionInFileName, parseFunctionName, type FunctionCell } from '../core/function-name.ts';
import { ExportFormatError, parseInsightsCsv, parseInsightsJson } from './insights.ts';
import { addLineItem, parseLogLine, readLines } from './log-line.ts';
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

export interface ImportResult {
  /** one per cold start, grouped by cell, in the order they were logged */
  records: AwsLambdaSampleRecord[];
  /** REPORT lines read: cold starts (with Init Duration) and warm invocations */
  coldStarts: number;
  warmStarts: number;
  /** REPORT lines of SnapStart restores (Restore Duration, no Init Duration): neither warm nor an INIT */
  restores: number;
  /** INIT_REPORT lines with a failed Status: failed cold starts (records with ok false) */
  failedInits: number;
  /** lines or rows that are not REPORT lines (START, END, function output) */
  ignored: number;
  /** the first MAX_KEPT_ISSUES REPORT lines or rows that gave no record, with where and why */
  issues: ReportIssue[];
  /** how many gave no record in all */
  issueCount: number;
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
  return new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}

/** Insights exports are read whole; a text file as large as this is not one of them. */
const MAX_EXPORT_BYTES = 512 * 2 ** 20;

function readExport(file: string, format: 'csv' | 'json'): ParsedReports {
  let text: string;
  try {
    if (statSync(file).size > MAX_EXPORT_BYTES)
      throw new UsageError(`${file} is larger than a Logs Insights export (${MAX_EXPORT_BYTES / 2 ** 20} MiB)`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
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
    start = readStart(file);
  } catch (error) {
    throw cannotRead(file, error);
  }
  return detectFormat(file, start);
}

function readStart(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Read and parse one whole file (tests, small files); UsageError when it cannot be read or is not the format it claims. */
export function readReportFile(file: string): ParsedReports & { format: ReportFormat } {
  const format = formatOf(file);
  if (format !== 'text') return { format, ...readExport(file, format) };
  const parsed: ParsedReports = { reports: [], initFailures: [], issues: [], ignored: 0 };
  try {
    readLines(file, (line, number) => {
      const item = parseLogLine(line, { file, line: number });
      if (item) addLineItem(parsed, item);
    });
  } catch (error) {
    throw cannotRead(file, error);
  }
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

function compareTime(a: { timestamp?: string }, b: { timestamp?: string }): number {
  return a.timestamp! < b.timestamp! ? -1 : a.timestamp! > b.timestamp! ? 1 : 0;
}

type Group = { name: string; cell: FunctionCell; memory: number; reports: (SourcedReport | (SourcedInitFailure & { failedInit: true }))[] };

/**
 * Reports, failed INITs and issues in, one at a time (each file's in the order of its lines or
 * records); records and counts out. Memory grows with the cold starts only.
 */
export class ImportCollector {
  private readonly result: ImportResult = {
    records: [],
    coldStarts: 0,
    warmStarts: 0,
    restores: 0,
    failedInits: 0,
    ignored: 0,
    issues: [],
    issueCount: 0,
  };
  private readonly seen = new Map<string, string>();
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
    this.result.issueCount++;
    if (this.result.issues.length < MAX_KEPT_ISSUES) this.result.issues.push(issue);
  }

  ignored(count = 1): void {
    this.result.ignored += count;
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
      if (report.restoreMs !== undefined) this.result.restores++;
      else this.result.warmStarts++;
      return;
    }
    // its own copy of the id: a slice of a line would keep the whole chunk it was read in alive
    const requestId = Buffer.from(report.requestId, 'utf8').toString('utf8');
    const key = `${assigned.name} ${requestId}`;
    const first = this.seen.get(key);
    if (first !== undefined) {
      this.issue({ source: report.source, reason: `request ${report.requestId} was already read at ${first}` });
      return;
    }
    this.seen.set(key, formatSource(report.source));
    this.result.coldStarts++;
    // its own copies of the texts: a slice of a line would keep the whole chunk it was read in alive
    const own = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
    this.group(assigned.name, assigned.cell, report.memorySizeMB).reports.push({
      ...report,
      requestId,
      ...(report.status !== undefined ? { status: own(report.status) } : {}),
      ...(report.errorType !== undefined ? { errorType: own(report.errorType) } : {}),
    });
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
      group = { name, cell, memory, reports: [] };
      this.groups.set(key, group);
    }
    return group;
  }

  finish(): ImportResult {
    const { result } = this;
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
      result.failedInits++;
      this.group(name, cell, memories[0]!).reports.push({ ...init, failedInit: true });
    }
    const ordered = [...this.groups.values()].sort(
      (a, b) =>
        a.cell.framework.localeCompare(b.cell.framework) ||
        a.cell.variant.localeCompare(b.cell.variant) ||
        a.cell.routes - b.cell.routes ||
        a.memory - b.memory,
    );
    const importedAt = this.options.importedAt ?? new Date().toISOString();
    for (const group of ordered) {
      // in the order they were logged when every report says when (Insights exports newest first); else as read
      const items = group.reports.every((r) => r.timestamp !== undefined) ? [...group.reports].sort(compareTime) : group.reports;
      items.forEach((item, i) => {
        const context = {
          functionName: group.name,
          index: i + 1,
          importedAt,
          ...(this.options.architecture ? { architecture: this.options.architecture } : {}),
        };
        result.records.push(
          'failedInit' in item ? initFailureRecord(item, group.cell, group.memory, context) : lambdaSampleRecord(item, group.cell, context),
        );
      });
    }
    return result;
  }
}

/** Read every file (text line by line, exports whole), then turn its reports into records. */
export function importReports(files: string[], options: ImportOptions = {}): ImportResult {
  if (files.length === 0) throw new UsageError('no files to import: give one or more files of REPORT lines');
  const collector = new ImportCollector(options);
  for (const file of files) {
    const format = formatOf(file);
    if (format !== 'text') {
      collector.parsed(readExport(file, format));
      continue;
    }
    try {
      readLines(file, (line, number) => {
        const item = parseLogLine(line, { file, line: number });
        if (item === undefined) return;
        if (item.kind === 'report') collector.report(item.report);
        else if (item.kind === 'init') collector.initFailure(item.init);
        else if (item.kind === 'issue') collector.issue(item.issue);
        else collector.ignored();
      });
    } catch (error) {
      throw cannotRead(file, error);
    }
  }
  return collector.finish();
}

/** What an import read, for the terminal: a summary line, then the issues (the first `maxIssues` of them). */
export function describeImport(result: ImportResult, maxIssues = 10): string[] {
  const cells = new Set(result.records.map((r) => `${r.lambda.functionName} ${r.cell.memory}`)).size;
  const restores = result.restores ? `, ${result.restores} SnapStart restores (not samples: no INIT)` : '';
  const inits = result.failedInits ? `; ${result.failedInits} failed INITs (INIT_REPORT), samples that failed` : '';
  const lines = [
    `${result.coldStarts + result.warmStarts + result.restores} REPORT lines read: ${result.coldStarts} cold starts ` +
      `(${result.records.length} samples with target ${AWS_LAMBDA_TARGET} in ${cells} cell${cells === 1 ? '' : 's'}), ` +
      `${result.warmStarts} warm invocations (not samples)${restores}${inits}; ` +
      `${result.ignored} other lines ignored; ${result.issueCount} not imported`,
  ];
  for (const issue of result.issues.slice(0, maxIssues)) lines.push(`  ${formatIssue(issue)}`);
  if (result.issueCount > maxIssues) lines.push(`  … and ${result.issueCount - maxIssues} more`);
  return lines;
}
