/**
 * Lines of a plain-text log file, read one at a time: a REPORT line, an INIT_REPORT line, an event of
 * Lambda's JSON log format (json-log.ts), or anything else (START, END, the function's own output),
 * which is ignored. A line may carry a timestamp (and a log stream) before its message.
 * Files are read line by line in bounded memory by store/files.ts's readLinesBounded (synchronously:
 * an import has nothing else to do meanwhile, and the callers stay simple).
 */
import { parsePlatformEvent } from './json-log.ts';
import {
  isReportMessage,
  parseInitReportMessage,
  parseReportMessage,
  parseTimestamp,
  type ParsedReports,
  type ReportIssue,
  type ReportSource,
  type SourcedInitFailure,
  type SourcedReport,
} from './report-lines.ts';

export type LineItem =
  | { kind: 'report'; report: SourcedReport }
  | { kind: 'init'; init: SourcedInitFailure }
  | { kind: 'issue'; issue: ReportIssue }
  | { kind: 'ignored' };

const INIT_REPORT = /(?:^|\s)INIT_REPORT\s/;
/** What may stand before a JSON event on a line: a timestamp, a log stream, spaces. */
const JSON_PREFIX = /^[^{"]*$/;

/** A line that holds an event of the JSON log format: undefined when it holds none. */
function jsonEvent(line: string, source: ReportSource): LineItem | undefined {
  const brace = line.indexOf('{');
  if (brace < 0 || !JSON_PREFIX.test(line.slice(0, brace)) || !line.includes('"platform.')) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(line.slice(brace));
  } catch {
    return /"type"\s*:\s*"platform\.(report|initReport)"/.test(line)
      ? { kind: 'issue', issue: { source, reason: 'a platform event that is not valid JSON' } }
      : undefined;
  }
  const item = parsePlatformEvent(event);
  if (!item) return undefined;
  const stamp = parseTimestamp(line);
  switch (item.kind) {
    case 'report':
      return { kind: 'report', report: { ...(stamp ? { timestamp: stamp } : {}), ...item.report, source } };
    case 'init':
      return item.init ? { kind: 'init', init: { ...(stamp ? { timestamp: stamp } : {}), ...item.init, source } } : { kind: 'ignored' };
    case 'issue':
      return { kind: 'issue', issue: { source, reason: item.reason } };
    default:
      return item;
  }
}

/** One line of a log file; undefined for a blank line. */
export function parseLogLine(raw: string, source: ReportSource): LineItem | undefined {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (!line.trim()) return undefined;
  if (isReportMessage(line)) {
    const parsed = parseReportMessage(line);
    if (!parsed.ok) return { kind: 'issue', issue: { source, reason: parsed.reason } };
    // only a cold start is kept, and only then does it matter when it was logged
    const timestamp = parsed.report.initMs === undefined ? undefined : parseTimestamp(line);
    return { kind: 'report', report: { ...parsed.report, ...(timestamp ? { timestamp } : {}), source } };
  }
  if (INIT_REPORT.test(line)) {
    const parsed = parseInitReportMessage(line);
    if (!parsed.ok) return { kind: 'issue', issue: { source, reason: parsed.reason } };
    if (!parsed.init) return { kind: 'ignored' };
    const timestamp = parseTimestamp(line);
    return { kind: 'init', init: { ...parsed.init, ...(timestamp ? { timestamp } : {}), source } };
  }
  return jsonEvent(line, source) ?? { kind: 'ignored' };
}

/** Add one line's item to a file's parse. */
export function addLineItem(parsed: ParsedReports, item: LineItem): void {
  if (item.kind === 'report') parsed.reports.push(item.report);
  else if (item.kind === 'init') parsed.initFailures.push(item.init);
  else if (item.kind === 'issue') parsed.issues.push(item.issue);
  else parsed.ignored++;
}

/** A plain-text file of log lines, already in memory (small files, tests). */
export function parseReportText(text: string, file: string): ParsedReports {
  const parsed: ParsedReports = { reports: [], initFailures: [], issues: [], ignored: 0 };
  text.split('\n').forEach((line, n) => {
    const item = parseLogLine(line, { file, line: n + 1 });
    if (item) addLineItem(parsed, item);
  });
  return parsed;
}
