/**
 * Lambda Web Functions' cold starts, from their system logs: one JSON event per line, the envelope of
 * AWS's "System log event schema for Lambda Web Functions" page (docs.aws.amazon.com/lambda/latest/dg/
 * web-functions-logging-system-log-schema, read 2026-12-05):
 *
 *   {"timestamp":"2026-09-25T11:12:31.402Z","level":"INFO","type":"platform.initReport","region":"us-east-1",
 *    "record":{"functionName":"…","revisionId":"…","instanceId":"…","initializationType":"on-demand",
 *    "status":"success","metrics":{"durationMs":508.7}}}
 *
 * A `platform.initReport` is the report of one environment's INIT (success or failure): its duration is
 * the cold start. The issue that asked for this (and the Web Functions pages) say the metric's field name
 * has changed between runtime versions, so both spellings Lambda's telemetry uses for an INIT duration
 * are read: `metrics.durationMs` (the Telemetry API's initReport) and `metrics.initDurationMs` (its
 * platform.report); both present and different is an issue, not a guess. Every other line is skipped;
 * input is bounded (bytes, line length, events) so a wrong file cannot take the machine.
 */
import { parseTimestamp } from './report-lines.ts';

/** The spellings of the INIT duration, in the order they are tried. */
export const INIT_DURATION_FIELDS = ['durationMs', 'initDurationMs'] as const;
/** A system-log line longer than this is not one (an initReport is well under 2 KiB). */
export const MAX_WEB_LOG_LINE = 64 * 1024;
/** At most this many initReports are kept from one input; the rest are counted as dropped. */
export const MAX_WEB_INIT_REPORTS = 100_000;

export interface WebInitReport {
  functionName: string;
  instanceId?: string;
  revisionId?: string;
  /** success, error, failure or timeout */
  status: string;
  /** the INIT duration, ms (absent when a failed report carries none) */
  initMs?: number;
  /** which spelling held it */
  field?: (typeof INIT_DURATION_FIELDS)[number];
  timestamp?: string;
  errorType?: string;
}

export interface WebInitReports {
  reports: WebInitReport[];
  /** lines that were initReports but could not be read, with why (the first few kept) */
  issues: string[];
  issueCount: number;
  /** initReports past MAX_WEB_INIT_REPORTS */
  dropped: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 512 ? v : undefined);

/** One line: a report, the reason it is a broken one, or undefined when it is no initReport at all. */
export function parseWebInitLine(line: string): WebInitReport | string | undefined {
  if (!line.includes('platform.initReport')) return undefined;
  if (line.length > MAX_WEB_LOG_LINE) return `a platform.initReport line of ${line.length} characters (at most ${MAX_WEB_LOG_LINE})`;
  let event: unknown;
  try {
    event = JSON.parse(line.slice(line.indexOf('{')));
  } catch {
    return 'a platform.initReport line that is not JSON';
  }
  if (!isObject(event) || event.type !== 'platform.initReport') return undefined;
  const record = event.record;
  if (!isObject(record)) return 'platform.initReport without a record';
  const functionName = text(record.functionName);
  if (!functionName) return 'platform.initReport without a functionName';
  const status = text(record.status);
  if (!status) return `platform.initReport of ${functionName} without a status`;
  const metrics = isObject(record.metrics) ? record.metrics : {};
  const found: { field: (typeof INIT_DURATION_FIELDS)[number]; value: number }[] = [];
  for (const field of INIT_DURATION_FIELDS) {
    const value = metrics[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 3_600_000)
      return `platform.initReport of ${functionName}: metrics.${field} ${JSON.stringify(value)} is not a duration`;
    found.push({ field, value });
  }
  if (found.length === 2 && found[0]!.value !== found[1]!.value)
    return (
      `platform.initReport of ${functionName}: ` +
      `metrics.durationMs and metrics.initDurationMs differ (${found[0]!.value}, ${found[1]!.value})`
    );
  if (found.length === 0 && status === 'success') return `platform.initReport of ${functionName} without an INIT duration`;
  const stamp = typeof event.timestamp === 'string' ? parseTimestamp(event.timestamp) : undefined;
  return {
    functionName,
    status,
    ...(text(record.instanceId) ? { instanceId: text(record.instanceId) } : {}),
    ...(text(record.revisionId) ? { revisionId: text(record.revisionId) } : {}),
    ...(found[0] ? { initMs: found[0].value, field: found[0].field } : {}),
    ...(stamp ? { timestamp: stamp } : {}),
    ...(text(record.errorType) ? { errorType: text(record.errorType) } : {}),
  };
}

/** Every initReport of a log's text (one event per line). */
export function parseWebInitReports(input: string, keptIssues = 10): WebInitReports {
  const out: WebInitReports = { reports: [], issues: [], issueCount: 0, dropped: 0 };
  const seen = new Set<string>();
  for (const line of input.split('\n')) {
    const item = parseWebInitLine(line.trim());
    if (item === undefined) continue;
    if (typeof item === 'string') {
      out.issueCount++;
      if (out.issues.length < keptIssues) out.issues.push(item);
      continue;
    }
    // the same environment's report twice (overlapping exports) counts once
    const key = item.instanceId ? `${item.functionName}\0${item.instanceId}` : undefined;
    if (key && seen.has(key)) continue;
    if (key) seen.add(key);
    if (out.reports.length >= MAX_WEB_INIT_REPORTS) {
      out.dropped++;
      continue;
    }
    out.reports.push(item);
  }
  return out;
}
