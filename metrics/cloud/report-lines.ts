/**
 * AWS Lambda's REPORT log line, the one Lambda writes to CloudWatch Logs after every invocation:
 *
 *   REPORT RequestId: <id>\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\t
 *   Max Memory Used: 18 MB\tInit Duration: 123.45 ms
 *
 * `Init Duration` is there only on the first invocation of an execution environment (a cold start).
 * Failed invocations add `Status` (`timeout`, `error`) and, for errors, `Error Type` (e.g.
 * `Runtime.OutOfMemory`). Traced ones add `XRAY TraceId`, `SegmentId` and `Sampled`, usually on a
 * second line of the same log event: inside an Insights `@message` they are read as fields, in a
 * plain-text file that second line is one of the ignored lines. Fields are tab-separated as Lambda
 * writes them; copies from a console often turn tabs into spaces, so fields are found by their names.
 * SnapStart functions resumed from a snapshot write `Restore Duration` instead of `Init Duration`: a
 * restore, neither a warm invocation nor an INIT. An `INIT_REPORT` line (`Init Duration`, `Phase`,
 * `Status`, `Error Type`) reports an INIT on its own: with a Status other than success it is a failed
 * cold start. Lambda's JSON log format writes the same as `platform.report` and `platform.initReport`
 * records (json-log.ts); parseLogLine reads a line in either format.
 *
 * This module reads one message (parseReportMessage, parseInitReportMessage); log-line.ts reads the
 * lines of plain-text files: what `aws logs tail` prints, an S3 export of a log group, a console copy.
 * A line may carry a timestamp (and a log stream) before the message. Lines that are not REPORT lines
 * (START, END, the function's own output) are counted as ignored; a REPORT line that does not parse,
 * or whose figures Lambda cannot report (report-values.ts), is an issue that names its file, line and why.
 */
import { impossibleReport, type ReportValues } from './report-values.ts';
import { MAX_DURATION_MS } from '../core/lambda-platform.ts';

/** One invocation as its REPORT line states it; times in ms, memory in MB (MiB, as Lambda means it). */
export interface LambdaReport extends ReportValues {
  requestId: string;
  /** Lambda's `Status` field when it wrote one (failed invocations); absent means success */
  status?: string;
  /** Lambda's `Error Type` field, with a failed status */
  errorType?: string;
  /** when it was logged, ISO 8601, when the input says */
  timestamp?: string;
  /** the function that logged it, when the input says (an Insights export's `@log`) */
  functionName?: string;
}

/** Where a report came from: a line of a text or CSV file, or the n-th record of a JSON export (1-based). */
export interface ReportSource {
  file: string;
  line?: number;
  record?: number;
}

export interface SourcedReport extends LambdaReport {
  source: ReportSource;
}

export interface ReportIssue {
  source: ReportSource;
  reason: string;
}

/** An INIT that Lambda reported as failed (`INIT_REPORT … Status: timeout`): a cold start that never served. */
export interface InitFailure {
  status: string;
  errorType?: string;
  /** how long the INIT ran, when the line says */
  initMs?: number;
  /** `init` (the INIT phase itself) or `invoke` (the INIT retried at the first invocation) */
  phase?: string;
  timestamp?: string;
  functionName?: string;
}

export interface SourcedInitFailure extends InitFailure {
  source: ReportSource;
}

/** What one file gave: reports, the problems (each named), and how many entries were not REPORTs. */
export interface ParsedReports {
  reports: SourcedReport[];
  /** INIT_REPORT lines with a failed Status */
  initFailures: SourcedInitFailure[];
  issues: ReportIssue[];
  /** lines or rows that are not REPORT lines (START, END, function output) */
  ignored: number;
}

export function formatSource(source: ReportSource): string {
  if (source.line !== undefined) return `${source.file}:${source.line}`;
  if (source.record !== undefined) return `${source.file} record ${source.record}`;
  return source.file;
}

export function formatIssue(issue: ReportIssue): string {
  return `${formatSource(issue.source)}: ${issue.reason}`;
}

/** The field names Lambda writes on a REPORT line; longer names first so `Init Duration` is not read as `Duration`. */
const FIELD_NAMES = [
  'RequestId',
  'Phase',
  'Billed Restore Duration',
  'Restore Duration',
  'Billed Duration',
  'Init Duration',
  'Duration',
  'Max Memory Used',
  'Memory Size',
  'XRAY TraceId',
  'SegmentId',
  'Sampled',
  'Status',
  'Error Type',
] as const;
type FieldName = (typeof FIELD_NAMES)[number];

const FIELD = new RegExp(`(?:^|\\s)(${FIELD_NAMES.map((n) => n.replace(' ', '\\s+')).join('|')}):`, 'g');
/** A field's name as matched (words joined by any whitespace) → its name; the usual single space is looked up directly. */
const NAMES = new Map<string, FieldName>(FIELD_NAMES.map((n) => [n, n]));
function fieldName(matched: string): FieldName {
  return (NAMES.get(matched) ?? NAMES.get(matched.replace(/\s+/g, ' ')))!;
}
const REQUIRED: readonly FieldName[] = ['RequestId', 'Duration', 'Billed Duration', 'Memory Size', 'Max Memory Used'];

/** `REPORT` then `RequestId`: how every REPORT line Lambda writes begins. */
const REPORT_START = /(?:^|\s)REPORT\s+RequestId\b/;

export type ParsedMessage = { ok: true; report: LambdaReport } | { ok: false; reason: string };

function quantity(fields: Map<FieldName, string>, name: FieldName, unit: 'ms' | 'MB'): number | string {
  const raw = fields.get(name);
  if (raw === undefined) return `no ${name}`;
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+)$/.exec(raw);
  if (!match) return `${name} ${JSON.stringify(raw)} is not a number of ${unit}`;
  if (match[2] !== unit) return `${name} is in ${match[2]}, expected ${unit}`;
  return Number(match[1]);
}

/** Whether a message is meant to be a REPORT line (it may still fail to parse). */
export function isReportMessage(message: string): boolean {
  return REPORT_START.test(message);
}

/** Read a REPORT message (the text after any timestamp); the reason names what is wrong when it does not parse. */
export function parseReportMessage(message: string): ParsedMessage {
  const start = REPORT_START.exec(message);
  if (!start) return { ok: false, reason: 'not a REPORT line' };
  const body = message
    .slice(start.index)
    .trim()
    .replace(/^REPORT\s+/, '');
  const fields = new Map<FieldName, string>();
  const found = [...body.matchAll(FIELD)];
  if (found.length === 0 || found[0]!.index !== 0) return { ok: false, reason: 'no RequestId field after REPORT' };
  for (let i = 0; i < found.length; i++) {
    const match = found[i]!;
    const name = fieldName(match[1]!);
    if (fields.has(name)) return { ok: false, reason: `${name} appears twice` };
    const from = match.index + match[0].length;
    const to = i + 1 < found.length ? found[i + 1]!.index : body.length;
    fields.set(name, body.slice(from, to).trim());
  }
  const missing = REQUIRED.filter((n) => !fields.has(n));
  if (missing.length) return { ok: false, reason: `missing ${missing.join(', ')}` };
  const requestId = fields.get('RequestId')!;
  if (!/^[A-Za-z0-9-]+$/.test(requestId)) return { ok: false, reason: `RequestId ${JSON.stringify(requestId)} is not a request id` };
  const values = {
    durationMs: quantity(fields, 'Duration', 'ms'),
    billedMs: quantity(fields, 'Billed Duration', 'ms'),
    memorySizeMB: quantity(fields, 'Memory Size', 'MB'),
    maxMemoryUsedMB: quantity(fields, 'Max Memory Used', 'MB'),
    initMs: fields.has('Init Duration') ? quantity(fields, 'Init Duration', 'ms') : undefined,
  };
  for (const value of Object.values(values)) if (typeof value === 'string') return { ok: false, reason: value };
  const numbers = values as { [K in keyof typeof values]: Exclude<(typeof values)[K], string> };
  const restoreMs = fields.has('Restore Duration') ? quantity(fields, 'Restore Duration', 'ms') : undefined;
  if (typeof restoreMs === 'string') return { ok: false, reason: restoreMs };
  const report: LambdaReport = {
    requestId,
    durationMs: numbers.durationMs,
    billedMs: numbers.billedMs,
    memorySizeMB: numbers.memorySizeMB,
    maxMemoryUsedMB: numbers.maxMemoryUsedMB,
    ...(numbers.initMs !== undefined ? { initMs: numbers.initMs } : {}),
    ...(restoreMs !== undefined ? { restoreMs } : {}),
  };
  const status = fields.get('Status');
  if (status) report.status = status;
  const errorType = fields.get('Error Type');
  if (errorType) report.errorType = errorType;
  const impossible = impossibleReport(report);
  return impossible ? { ok: false, reason: impossible } : { ok: true, report };
}

/** `INIT_REPORT`, how Lambda begins the line of an INIT it reports on its own. */
const INIT_REPORT_START = /(?:^|\s)INIT_REPORT\s+(?=Init Duration|Phase|Status)/;

export type ParsedInit = { ok: true; init: InitFailure | undefined } | { ok: false; reason: string };

/** Read an INIT_REPORT message: a failed INIT, undefined for a successful one, or why it does not parse. */
export function parseInitReportMessage(message: string): ParsedInit {
  const start = INIT_REPORT_START.exec(message);
  if (!start) return { ok: false, reason: 'not an INIT_REPORT line' };
  const body = message.slice(start.index + start[0].length).trim();
  const fields = new Map<string, string>();
  const found = [...body.matchAll(FIELD)];
  for (let i = 0; i < found.length; i++) {
    const match = found[i]!;
    const to = i + 1 < found.length ? found[i + 1]!.index : body.length;
    fields.set(fieldName(match[1]!), body.slice(match.index + match[0].length, to).trim());
  }
  const status = fields.get('Status');
  if (!status) return { ok: false, reason: 'INIT_REPORT without Status' };
  if (status === 'success') return { ok: true, init: undefined };
  const init: InitFailure = { status };
  const errorType = fields.get('Error Type');
  if (errorType) init.errorType = errorType;
  const phase = fields.get('Phase');
  if (phase) init.phase = phase;
  if (fields.has('Init Duration')) {
    const initMs = quantity(fields as Map<FieldName, string>, 'Init Duration', 'ms');
    if (typeof initMs === 'string') return { ok: false, reason: initMs };
    if (initMs > MAX_DURATION_MS)
      return { ok: false, reason: `Init Duration ${initMs} ms is beyond what Lambda reports (at most ${MAX_DURATION_MS} ms)` };
    init.initMs = initMs;
  }
  return { ok: true, init };
}

/**
 * A timestamp at the start of a log line: ISO 8601 as S3 exports and `aws logs tail` print it
 * (`2025-08-01T12:00:00.123Z`, `2025-08-01T12:00:00.123000+00:00`) or Logs Insights' UTC form
 * (`2025-08-01 12:00:00.123`).
 */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)(Z|[+-]\d{2}:?\d{2})?(?=\s|$)/;

/** A timestamp as ISO 8601 in UTC; a time without a zone is UTC (as Logs Insights prints it). */
export function parseTimestamp(text: string): string | undefined {
  const match = TIMESTAMP.exec(text.trim());
  if (!match) return undefined;
  const fraction = match[2]!.replace(',', '.').replace(/(\.\d{3})\d+$/, '$1');
  const zone = match[3] === undefined || match[3] === 'Z' ? 'Z' : match[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(`${match[1]}T${fraction}${zone}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
