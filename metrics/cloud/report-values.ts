import { MAX_DURATION_MS, MAX_MEMORY_MB, MIN_MEMORY_MB } from '../core/lambda-platform.ts';
/**
 * What Lambda can report: a REPORT line (text, an Insights row, a `platform.report` record) whose
 * figures lie outside it was not written by Lambda as it is, so it is refused with the reason rather
 * than fed into medians and the cost table. Every reader of outside REPORT figures asks here.
 */

/** The figures of a REPORT line (report-lines.ts's LambdaReport adds where it came from); times in ms, memory in MB. */
export interface ReportValues {
  durationMs: number;
  billedMs: number;
  memorySizeMB: number;
  maxMemoryUsedMB: number;
  /** present on cold starts only */
  initMs?: number;
  /** present on SnapStart restores only */
  restoreMs?: number;
}

function badTime(name: string, value: number | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 0) return `${name} ${value} ms is not a duration`;
  return value > max ? `${name} ${value} ms is beyond what Lambda reports (at most ${max} ms)` : undefined;
}

/** Why a report's figures cannot be Lambda's, or undefined when they can. */
export function impossibleReport(report: ReportValues): string | undefined {
  const memory = report.memorySizeMB;
  if (!Number.isInteger(memory) || memory < MIN_MEMORY_MB || memory > MAX_MEMORY_MB) {
    return `Memory Size ${memory} MB is not a Lambda memory size (a whole number of MB from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB})`;
  }
  const used = report.maxMemoryUsedMB;
  if (!Number.isFinite(used) || used < 0) return `Max Memory Used ${used} MB is not a memory size`;
  if (used > memory) return `Max Memory Used ${used} MB is above Memory Size ${memory} MB`;
  return (
    badTime('Duration', report.durationMs, MAX_DURATION_MS) ??
    // an INIT that missed its 10 s is retried within the invocation, under the function's own timeout
    badTime('Init Duration', report.initMs, MAX_DURATION_MS) ??
    badTime('Restore Duration', report.restoreMs, MAX_DURATION_MS) ??
    // since 1 August 2025 Billed Duration holds INIT too: at most both limits
    badTime('Billed Duration', report.billedMs, 2 * MAX_DURATION_MS + 1)
  );
}
