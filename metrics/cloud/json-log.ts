/**
 * Lambda's JSON log format: with `LoggingConfig.LogFormat: JSON` Lambda writes its platform events as
 * JSON objects, one per log event, instead of the REPORT and INIT_REPORT text lines:
 *
 *   {"time":"2025-08-01T10:00:00.320Z","type":"platform.report","record":{"requestId":"…",
 *    "metrics":{"durationMs":12.34,"billedDurationMs":236,"memorySizeMB":1024,"maxMemoryUsedMB":68,
 *    "initDurationMs":222.81},"status":"success"}}
 *   {"time":"…","type":"platform.initReport","record":{"initializationType":"on-demand","phase":"init",
 *    "status":"timeout","metrics":{"durationMs":10000.0}}}
 *
 * (the record schemas of the Telemetry API reference: `platform.report` with `metrics.initDurationMs`
 * on a cold start and `metrics.restoreDurationMs` on a SnapStart restore; `platform.initReport` with
 * `status` success, error, failure or timeout and, when it failed, `errorType`). Other `platform.*`
 * events and the function's own JSON lines are not reports.
 */
import type { InitFailure, LambdaReport } from './report-lines.ts';
import { parseTimestamp } from './report-lines.ts';
import { impossibleReport } from './report-values.ts';

export type PlatformItem =
  | { kind: 'report'; report: LambdaReport }
  | { kind: 'init'; init: InitFailure | undefined }
  | { kind: 'issue'; reason: string }
  | { kind: 'ignored' };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A metric of a record: a finite non-negative number, or the reason it is not. */
function metric(metrics: Json, name: string, required: boolean): number | undefined | string {
  const value = metrics[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    return `metrics.${name} ${value === undefined ? 'missing' : JSON.stringify(value)} is not a figure`;
  return value;
}

function reportOf(record: Json): PlatformItem {
  const requestId = record.requestId;
  if (typeof requestId !== 'string' || !/^[A-Za-z0-9-]+$/.test(requestId))
    return { kind: 'issue', reason: 'platform.report without a requestId' };
  if (!isObject(record.metrics)) return { kind: 'issue', reason: 'platform.report without metrics' };
  const m = record.metrics;
  const values = {
    durationMs: metric(m, 'durationMs', true),
    billedMs: metric(m, 'billedDurationMs', true),
    memorySizeMB: metric(m, 'memorySizeMB', true),
    maxMemoryUsedMB: metric(m, 'maxMemoryUsedMB', true),
    initMs: metric(m, 'initDurationMs', false),
    restoreMs: metric(m, 'restoreDurationMs', false),
  };
  for (const value of Object.values(values)) if (typeof value === 'string') return { kind: 'issue', reason: value };
  const n = values as { [K in keyof typeof values]: number | undefined };
  const report: LambdaReport = {
    requestId,
    durationMs: n.durationMs!,
    billedMs: n.billedMs!,
    memorySizeMB: n.memorySizeMB!,
    maxMemoryUsedMB: n.maxMemoryUsedMB!,
    ...(n.initMs !== undefined ? { initMs: n.initMs } : {}),
    ...(n.restoreMs !== undefined ? { restoreMs: n.restoreMs } : {}),
  };
  // the text line writes no Status on success; the record always does
  if (typeof record.status === 'string' && record.status !== 'success') report.status = record.status;
  if (typeof record.errorType === 'string') report.errorType = record.errorType;
  const impossible = impossibleReport(report);
  return impossible ? { kind: 'issue', reason: impossible } : { kind: 'report', report };
}

function initOf(record: Json): PlatformItem {
  const status = record.status;
  if (typeof status !== 'string') return { kind: 'issue', reason: 'platform.initReport without a status' };
  if (status === 'success') return { kind: 'init', init: undefined };
  const init: InitFailure = { status };
  if (typeof record.errorType === 'string') init.errorType = record.errorType;
  if (typeof record.phase === 'string') init.phase = record.phase;
  if (isObject(record.metrics)) {
    const duration = metric(record.metrics, 'durationMs', false);
    if (typeof duration === 'string') return { kind: 'issue', reason: duration };
    if (duration !== undefined) init.initMs = duration;
  }
  return { kind: 'init', init };
}

/** The timestamp of an event (`time`), ISO 8601 in UTC, when it has a valid one. */
export function eventTime(event: Json): string | undefined {
  return typeof event.time === 'string' ? parseTimestamp(event.time) : undefined;
}

/** One event of the JSON log format, already parsed; undefined when it is not a platform event at all. */
export function parsePlatformEvent(event: unknown): PlatformItem | undefined {
  if (!isObject(event) || typeof event.type !== 'string' || !event.type.startsWith('platform.')) return undefined;
  if (event.type !== 'platform.report' && event.type !== 'platform.initReport') return { kind: 'ignored' };
  if (!isObject(event.record)) return { kind: 'issue', reason: `${event.type} without a record` };
  const item = event.type === 'platform.report' ? reportOf(event.record) : initOf(event.record);
  const time = eventTime(event);
  if (time === undefined) return item;
  if (item.kind === 'report') return { kind: 'report', report: { ...item.report, timestamp: time } };
  if (item.kind === 'init' && item.init) return { kind: 'init', init: { ...item.init, timestamp: time } };
  return item;
}
