/**
 * Files of CloudWatch REPORT lines in, sample records out. Each file is plain text (log lines), or a
 * Logs Insights export in CSV or JSON; the extension decides (.csv, .json), else the content does.
 *
 * Which cell a report belongs to comes from its function's name (function-name.ts): the log group
 * the export names (`@log`), else `--function`, else a function name inside the file's name. A report
 * whose function is unknown, or not named like a packaged cell, is an issue, as is a request id read
 * twice (overlapping exports) and every line that does not parse. Issues are counted and named;
 * nothing is dropped silently.
 *
 * A whole file that cannot be read, or is not the format its name says, is a UsageError.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import { functionInFileName, parseFunctionName, type FunctionCell } from './function-name.ts';
import { ExportFormatError, parseInsightsCsv, parseInsightsJson } from './insights.ts';
import type { Architecture } from './platform.ts';
import { AWS_LAMBDA_TARGET, lambdaSampleRecord, type AwsLambdaSampleRecord } from './records.ts';
import { formatIssue, formatSource, parseReportText, type ParsedReports, type ReportIssue, type SourcedReport } from './report-lines.ts';

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
  /** lines or rows that are not REPORT lines (START, END, function output) */
  ignored: number;
  /** every REPORT line or row that gave no record, with where and why */
  issues: ReportIssue[];
}

const INSIGHTS_HEADER = /^\uFEFF?"?@?(timestamp|message|requestId|log|duration|type)"?\s*,/;

export function detectFormat(file: string, text: string): ReportFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.json') return 'json';
  const start = text.trimStart();
  if (start.startsWith('[') || start.startsWith('{')) return 'json';
  return INSIGHTS_HEADER.test(start) ? 'csv' : 'text';
}

/** Read and parse one file; UsageError when it cannot be read or is not the format it claims. */
export function readReportFile(file: string): ParsedReports & { format: ReportFormat } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const format = detectFormat(file, text);
  try {
    if (format === 'csv') return { format, ...parseInsightsCsv(text, file) };
    if (format === 'json') return { format, ...parseInsightsJson(text, file) };
    return { format, ...parseReportText(text, file) };
  } catch (error) {
    if (error instanceof ExportFormatError) throw new UsageError(error.message);
    throw error;
  }
}

function checkFunctionOption(name: string | undefined): void {
  if (name !== undefined && !parseFunctionName(name)) {
    throw new UsageError(`--function ${JSON.stringify(name)} is not a packaged function name (coldstart-<framework>-<routes>-<variant>)`);
  }
}

type Assigned = { ok: true; name: string; cell: FunctionCell } | { ok: false; reason: string };

function assignFunction(report: SourcedReport, options: ImportOptions): Assigned {
  const fromFile = functionInFileName(path.basename(report.source.file));
  if (report.functionName !== undefined && options.functionName !== undefined && report.functionName !== options.functionName) {
    return { ok: false, reason: `logged by ${report.functionName}, not by --function ${options.functionName}` };
  }
  const name = report.functionName ?? options.functionName ?? fromFile;
  if (name === undefined) {
    return { ok: false, reason: 'no function name: no log group in the data, no --function, none in the file name' };
  }
  const cell = parseFunctionName(name);
  if (!cell) return { ok: false, reason: `function ${name} is not named coldstart-<framework>-<routes>-<variant>` };
  return { ok: true, name, cell };
}

function compareTime(a: SourcedReport, b: SourcedReport): number {
  return a.timestamp! < b.timestamp! ? -1 : a.timestamp! > b.timestamp! ? 1 : 0;
}

/** Issues in the order of the files, then of the lines or records within each. */
function sortIssues(issues: ReportIssue[], parsed: ParsedReports[]): ReportIssue[] {
  const files = new Map<string, number>();
  for (const file of parsed) {
    for (const item of [...file.reports, ...file.issues]) if (!files.has(item.source.file)) files.set(item.source.file, files.size);
  }
  const position = (issue: ReportIssue) => issue.source.line ?? issue.source.record ?? 0;
  return [...issues].sort((a, b) => (files.get(a.source.file) ?? 0) - (files.get(b.source.file) ?? 0) || position(a) - position(b));
}

/** Turn the reports of several files into records (cold starts) and counts. */
export function reportsToRecords(parsed: ParsedReports[], options: ImportOptions = {}): ImportResult {
  checkFunctionOption(options.functionName);
  const importedAt = options.importedAt ?? new Date().toISOString();
  const result: ImportResult = { records: [], coldStarts: 0, warmStarts: 0, ignored: 0, issues: [] };
  const seen = new Map<string, SourcedReport>();
  const groups = new Map<string, { name: string; cell: FunctionCell; memory: number; reports: SourcedReport[] }>();
  for (const file of parsed) {
    result.ignored += file.ignored;
    result.issues.push(...file.issues);
    for (const report of file.reports) {
      const assigned = assignFunction(report, options);
      if (!assigned.ok) {
        result.issues.push({ source: report.source, reason: assigned.reason });
        continue;
      }
      const key = `${assigned.name} ${report.requestId}`;
      const first = seen.get(key);
      if (first) {
        result.issues.push({
          source: report.source,
          reason: `request ${report.requestId} was already read at ${formatSource(first.source)}`,
        });
        continue;
      }
      seen.set(key, report);
      if (report.initMs === undefined) {
        result.warmStarts++;
        continue;
      }
      result.coldStarts++;
      const groupKey = `${assigned.name} ${report.memorySizeMB}`;
      const group = groups.get(groupKey) ?? { name: assigned.name, cell: assigned.cell, memory: report.memorySizeMB, reports: [] };
      group.reports.push(report);
      groups.set(groupKey, group);
    }
  }
  result.issues = sortIssues(result.issues, parsed);
  const ordered = [...groups.values()].sort(
    (a, b) =>
      a.cell.framework.localeCompare(b.cell.framework) ||
      a.cell.variant.localeCompare(b.cell.variant) ||
      a.cell.routes - b.cell.routes ||
      a.memory - b.memory,
  );
  for (const group of ordered) {
    // in the order they were logged when every report says when (Insights exports newest first); else as read
    const reports = group.reports.every((r) => r.timestamp !== undefined) ? [...group.reports].sort(compareTime) : group.reports;
    reports.forEach((report, i) => {
      result.records.push(
        lambdaSampleRecord(report, group.cell, {
          functionName: group.name,
          index: i + 1,
          importedAt,
          ...(options.architecture ? { architecture: options.architecture } : {}),
        }),
      );
    });
  }
  return result;
}

/** Read every file, then turn its reports into records. */
export function importReports(files: string[], options: ImportOptions = {}): ImportResult {
  if (files.length === 0) throw new UsageError('no files to import: give one or more files of REPORT lines');
  checkFunctionOption(options.functionName);
  return reportsToRecords(
    files.map((file) => readReportFile(file)),
    options,
  );
}

/** What an import read, for the terminal: a summary line, then the issues (the first `maxIssues` of them). */
export function describeImport(result: ImportResult, maxIssues = 10): string[] {
  const cells = new Set(result.records.map((r) => `${r.lambda.functionName} ${r.cell.memory}`)).size;
  const lines = [
    `${result.coldStarts + result.warmStarts} REPORT lines read: ${result.coldStarts} cold starts (${result.records.length} samples ` +
      `with target ${AWS_LAMBDA_TARGET} in ${cells} cell${cells === 1 ? '' : 's'}), ${result.warmStarts} warm invocations (not samples); ` +
      `${result.ignored} other lines ignored; ${result.issues.length} not imported`,
  ];
  for (const issue of result.issues.slice(0, maxIssues)) lines.push(`  ${formatIssue(issue)}`);
  if (result.issues.length > maxIssues) lines.push(`  … and ${result.issues.length - maxIssues} more`);
  return lines;
}
