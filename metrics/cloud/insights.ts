/**
 * CloudWatch Logs Insights exports of Lambda REPORT events, as CSV or JSON. A row holds either the
 * raw line (`@message`) or the fields Insights discovers in Lambda's REPORT lines: `@requestId`,
 * `@duration`, `@billedDuration`, `@initDuration` (cold starts only), `@memorySize`,
 * `@maxMemoryUsed`, with `@timestamp`, `@log` (`<account>:/aws/lambda/<name>`) and `@logStream`.
 * When a row has the discovered fields they are used; otherwise its `@message` is parsed as a line.
 *
 * Insights gives the two memory fields in bytes. A memory size is 128 to 10,240 MB, so a
 * `@memorySize` from 128 to 10,240 can only be megabytes and one of 128 MiB or more only bytes; the
 * unit found there is used for `@maxMemoryUsed` of the same row, and any other value is an issue.
 *
 * JSON comes in two shapes: the console's download (an array of objects keyed by field name) and
 * `aws logs get-query-results` (`{"results": [[{"field": …, "value": …}, …], …]}`).
 */
import { parse } from 'csv-parse/sync';
import { functionOfLogGroup } from '../core/function-name.ts';
import { parseLogLine } from './log-line.ts';
import { parseTimestamp, type InitFailure, type LambdaReport, type ParsedReports, type ReportSource } from './report-lines.ts';
import { impossibleReport } from './report-values.ts';
import { MAX_MEMORY_MB, MIN_MEMORY_MB } from '../core/lambda-platform.ts';

export class ExportFormatError extends Error {}

type Row = Record<string, unknown>;

const MIB = 1024 * 1024;

/** The value of a field, with or without its `@` (some tools drop it). */
function field(row: Row, name: string): string | undefined {
  const value = row[`@${name}`] ?? row[name];
  if (value === undefined || value === null) return undefined;
  // a number or boolean from a JSON export reads as it is written; an object or array stays JSON, not "[object Object]"
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).trim();
  return text === '' ? undefined : text;
}

function number(row: Row, name: string): number | string | undefined {
  const text = field(row, name);
  if (text === undefined) return undefined;
  return /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text) ? Number(text) : `@${name} ${JSON.stringify(text)} is not a number`;
}

const DISCOVERED = ['requestId', 'duration', 'billedDuration', 'memorySize', 'maxMemoryUsed'] as const;

type RowResult =
  { kind: 'report'; report: LambdaReport } | { kind: 'init'; init: InitFailure } | { kind: 'issue'; reason: string } | { kind: 'ignored' };

function fromDiscoveredFields(row: Row): RowResult {
  const missing = DISCOVERED.filter((name) => field(row, name) === undefined);
  if (missing.length) return { kind: 'issue', reason: `missing ${missing.map((m) => `@${m}`).join(', ')}` };
  const values = {
    durationMs: number(row, 'duration'),
    billedMs: number(row, 'billedDuration'),
    memorySize: number(row, 'memorySize'),
    maxMemoryUsed: number(row, 'maxMemoryUsed'),
    initMs: number(row, 'initDuration'),
  };
  for (const value of Object.values(values)) if (typeof value === 'string') return { kind: 'issue', reason: value };
  const memorySize = values.memorySize as number;
  const scale = memorySize >= MIN_MEMORY_MB && memorySize <= MAX_MEMORY_MB ? 1 : memorySize >= MIN_MEMORY_MB * MIB ? MIB : undefined;
  if (scale === undefined || memorySize / scale > MAX_MEMORY_MB) {
    return {
      kind: 'issue',
      reason: `@memorySize ${memorySize} is neither bytes nor MB of a Lambda memory size (${MIN_MEMORY_MB} to ${MAX_MEMORY_MB} MB)`,
    };
  }
  const report: LambdaReport = {
    requestId: field(row, 'requestId')!,
    durationMs: values.durationMs as number,
    billedMs: values.billedMs as number,
    memorySizeMB: memorySize / scale,
    maxMemoryUsedMB: (values.maxMemoryUsed as number) / scale,
    ...(values.initMs !== undefined ? { initMs: values.initMs as number } : {}),
  };
  const impossible = impossibleReport(report);
  return impossible ? { kind: 'issue', reason: impossible } : { kind: 'report', report };
}

/** A row's `@message`: a REPORT or INIT_REPORT line, or an event of the JSON log format (log-line.ts reads all three). */
function fromMessage(message: string, type: string | undefined): RowResult {
  const item = parseLogLine(message, { file: '' });
  if (item === undefined || item.kind === 'ignored') {
    return type === 'REPORT' ? { kind: 'issue', reason: '@type is REPORT but @message is not' } : { kind: 'ignored' };
  }
  if (item.kind === 'issue') return { kind: 'issue', reason: item.issue.reason };
  // the row's own fields say when and who; the message's source is the row's
  if (item.kind === 'init') {
    const { source: _source, ...init } = item.init;
    return { kind: 'init', init };
  }
  const { source: _source, ...report } = item.report;
  return { kind: 'report', report };
}

function fromRow(row: Row): RowResult {
  const type = field(row, 'type');
  if (type !== undefined && type !== 'REPORT' && type !== 'INIT_REPORT') return { kind: 'ignored' };
  const message = field(row, 'message');
  let result: RowResult;
  if (DISCOVERED.some((name) => field(row, name) !== undefined)) {
    result = fromDiscoveredFields(row);
  } else if (message !== undefined) {
    result = fromMessage(message, type);
  } else {
    return { kind: 'issue', reason: 'neither @message nor the REPORT fields (@requestId, @duration, …)' };
  }
  if (result.kind !== 'report' && result.kind !== 'init') return result;
  const stamp = field(row, 'timestamp');
  const timestamp = stamp === undefined ? undefined : parseTimestamp(stamp);
  if (stamp !== undefined && timestamp === undefined) return { kind: 'issue', reason: `@timestamp ${JSON.stringify(stamp)} is not a time` };
  const log = field(row, 'log');
  const functionName = log === undefined ? undefined : functionOfLogGroup(log);
  if (log !== undefined && functionName === undefined)
    return { kind: 'issue', reason: `@log ${JSON.stringify(log)} is not a Lambda log group` };
  const about = { ...(timestamp ? { timestamp } : {}), ...(functionName ? { functionName } : {}) };
  return result.kind === 'init'
    ? { kind: 'init', init: { ...result.init, ...about } }
    : { kind: 'report', report: { ...result.report, ...about } };
}

function collect(rows: { row: Row; source: ReportSource }[]): ParsedReports {
  const parsed: ParsedReports = { reports: [], initFailures: [], issues: [], ignored: 0 };
  for (const { row, source } of rows) {
    const result = fromRow(row);
    if (result.kind === 'report') parsed.reports.push({ ...result.report, source });
    else if (result.kind === 'init') parsed.initFailures.push({ ...result.init, source });
    else if (result.kind === 'issue') parsed.issues.push({ source, reason: result.reason });
    else parsed.ignored++;
  }
  return parsed;
}

/** An Insights CSV export: a header row of field names, one row per log event. */
export function parseInsightsCsv(text: string, file: string): ParsedReports {
  const rows: { row: Row; source: ReportSource }[] = [];
  const skipped: { line: number | undefined; reason: string }[] = [];
  let records: { record: Row; info: { lines: number } }[];
  try {
    // with `info: true` each record comes as { record, info }, which csv-parse's types do not say: T states it
    records = parse<{ record: Row; info: { lines: number } }>(text, {
      columns: true,
      bom: true,
      info: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        if (error) {
          // csv-parse copies its parser's context onto the error, the line number among them (untyped there)
          const line: unknown = error.lines;
          skipped.push({ line: typeof line === 'number' ? line : undefined, reason: `not a CSV row: ${error.message.split('\n')[0]}` });
        }
        return undefined;
      },
    });
  } catch (error) {
    throw new ExportFormatError(`${file} is not a CSV export: ${(error as Error).message.split('\n')[0]}`);
  }
  if (records.length > 0 && !Object.keys(records[0]!.record).some((k) => /^@?(message|requestId|duration)$/.test(k))) {
    throw new ExportFormatError(`${file} has no @message or @requestId/@duration column: not a Logs Insights export of REPORT lines`);
  }
  for (const { record, info } of records) rows.push({ row: record, source: { file, line: info.lines } });
  const parsed = collect(rows);
  parsed.issues.push(...skipped.map((s) => ({ source: { file, line: s.line }, reason: s.reason })));
  return parsed;
}

/** The rows of a get-query-results answer: each result is a list of {field, value}. */
function queryResultRows(results: unknown[]): Row[] {
  return results.map((result) => {
    const row: Row = {};
    if (!Array.isArray(result)) return row;
    for (const cell of result as unknown[]) {
      if (cell && typeof cell === 'object' && typeof (cell as Row).field === 'string')
        row[(cell as Row).field as string] = (cell as Row).value;
    }
    return row;
  });
}

/** An Insights JSON export: the console's array of rows, or `aws logs get-query-results` output. */
export function parseInsightsJson(text: string, file: string): ParsedReports {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExportFormatError(`${file} is not JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  let rows: unknown[];
  if (Array.isArray(value)) rows = value;
  else if (value && typeof value === 'object' && Array.isArray((value as Row).results))
    rows = queryResultRows((value as Row).results as unknown[]);
  else throw new ExportFormatError(`${file} is neither an array of Insights rows nor get-query-results output ({"results": [...]})`);
  return collect(
    rows.map((row, i) => ({
      row: row && typeof row === 'object' && !Array.isArray(row) ? (row as Row) : {},
      source: { file, record: i + 1 },
    })),
  );
}
