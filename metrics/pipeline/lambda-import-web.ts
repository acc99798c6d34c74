/**
 * lambda:import of Lambda Web Functions' system logs: their platform.initReport lines (cloud/web-init-report.ts)
 * as real cold starts per function (analyse/web-cold-starts.ts). A file is taken for a Web Functions log
 * when its start holds a platform event in the Web Functions envelope (`timestamp` and a record with an
 * `instanceId`); each is read whole, bounded as a Logs Insights export is.
 */
import { MAX_EXPORT_BYTES } from '../cloud/import.ts';
import { parseWebInitReports, type WebInitReports } from '../cloud/web-init-report.ts';
import { webColdStartLines, webColdStarts, type WebColdStarts } from '../analyse/web-cold-starts.ts';
import { oneLine } from '../core/escape.ts';
import { UsageError } from '../core/errors.ts';
import { readTextBounded } from '../store/input-files.ts';

const SNIFF_BYTES = 64 * 1024;

/** Whether `file` starts like a Web Functions system log. */
export function isWebFunctionsLog(file: string): boolean {
  let start: string;
  try {
    start = readTextBounded(file, SNIFF_BYTES, 'a log file', { prefix: true });
  } catch {
    // missing, unreadable or not a file: the REPORT import says so, with its own words and exit code
    return false;
  }
  return /"type"\s*:\s*"platform\.[A-Za-z]+"/.test(start) && /"instanceId"\s*:/.test(start) && /"timestamp"\s*:/.test(start);
}

export interface WebImport {
  rows: WebColdStarts[];
  /** what lambda:import prints: a line per function, then what was not read (text from the log made one safe line) */
  lines: string[];
  issues: string[];
  issueCount: number;
  dropped: number;
}

/** Every file's initReports, per function; no report at all is a UsageError naming what was read. */
export function importWebFunctions(files: readonly string[]): WebImport {
  const all: WebInitReports = { reports: [], issues: [], issueCount: 0, dropped: 0 };
  for (const file of files) {
    const parsed = parseWebInitReports(readTextBounded(file, MAX_EXPORT_BYTES, 'a Web Functions log'));
    all.reports.push(...parsed.reports);
    all.issues.push(...parsed.issues.slice(0, Math.max(0, 10 - all.issues.length)));
    all.issueCount += parsed.issueCount;
    all.dropped += parsed.dropped;
  }
  if (all.reports.length === 0)
    throw new UsageError(
      `no platform.initReport of a Web Function in ${files.length} file${files.length === 1 ? '' : 's'} (${all.issueCount} unreadable)`,
    );
  const rows = webColdStarts(all.reports);
  const lines = webColdStartLines(rows).map(oneLine);
  if (all.issueCount > 0) lines.push(oneLine(`${all.issueCount} initReport lines not read: ${all.issues.join('; ')}`));
  if (all.dropped > 0) lines.push(`${all.dropped} initReports past the first 100,000 not read`);
  return { rows, lines, issues: all.issues, issueCount: all.issueCount, dropped: all.dropped };
}
