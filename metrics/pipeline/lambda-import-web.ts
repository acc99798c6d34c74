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
import { besideReal, type WebBesideReal, type WebEstimate } from '../analyse/web-cold-starts.ts';
import { loadRun } from '../report/write.ts';
import { targetKind } from '../core/kinds.ts';
import { webFunctionName } from '../cloud/web-package.ts';
import type { CellSummary } from '../analyse/aggregate.ts';
import { cpuSpeedsOf } from '../calibration/lambda-cpu-reference.ts';
import type { LocalCpuSpeed } from '../core/meta.ts';
import { webCpuRatio } from '../report/web-functions.ts';

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
  rows: (WebColdStarts | WebBesideReal)[];
  /** what lambda:import prints: a line per function, then what was not read (text from the log made one safe line) */
  lines: string[];
  issues: string[];
  issueCount: number;
  dropped: number;
}

/**
 * A local run's figure for each Web Function name: the median of the time to ready of its cells that are
 * servers (ready when they listen: spawn → listening, what Lambda waits for), with its 95 % interval. A
 * target that is not plain (lambda-web) wins over the plain server for the same function.
 */
export function localEstimates(
  summaries: readonly CellSummary[],
  speeds: Readonly<Record<string, LocalCpuSpeed>> = {},
): Map<string, WebEstimate> {
  const out = new Map<string, { estimate: WebEstimate; plain: boolean }>();
  for (const s of summaries) {
    const kind = targetKind(s.cell.target);
    if (kind.ready !== 'listen' || kind.handler) continue;
    const stats = s.metrics[kind.ready];
    if (!stats || stats.n === 0) continue;
    let name: string;
    try {
      name = webFunctionName({ framework: s.cell.framework, variant: s.cell.variant, routes: s.cell.routes });
    } catch {
      continue;
    }
    const known = out.get(name);
    if (known && !known.plain) continue;
    const estimate: WebEstimate = {
      p50: stats.median,
      ...(stats.ci95 ? { interval: { low: stats.ci95.low, high: stats.ci95.high } } : {}),
      ...modelledOf(s, stats.median, speeds),
    };
    out.set(name, { estimate, plain: kind.plain });
  }
  return new Map([...out].map(([name, { estimate }]) => [name, estimate]));
}

/** A lambda-web cell's modelled figure on Lambda (its median × the arm64 CPU ratio), when the run timed the loop. */
function modelledOf(s: CellSummary, median: number, speeds: Readonly<Record<string, LocalCpuSpeed>>): { modelled?: number } {
  if (targetKind(s.cell.target).caps === undefined) return {};
  const ratio = webCpuRatio(s.cell.runtime, speeds);
  return ratio === undefined ? {} : { modelled: median * ratio };
}

/** Every file's initReports, per function; no report at all is a UsageError naming what was read. */
export function importWebFunctions(files: readonly string[], estimateRun?: string): WebImport {
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
  const real = webColdStarts(all.reports);
  const run = estimateRun === undefined ? undefined : loadRun(estimateRun);
  const estimates = run ? localEstimates(run.summaries, cpuSpeedsOf(run.meta?.lambda)) : undefined;
  const rows: (WebColdStarts | WebBesideReal)[] = real.map((r) => {
    const estimate = estimates?.get(r.functionName);
    return estimate && r.n > 0 ? besideReal(r, estimate) : r;
  });
  const lines = webColdStartLines(rows).map(oneLine);
  if (estimates && !rows.some((r) => 'estimate' in r))
    lines.push(`no function of ${estimateRun} matches these Web Functions (coldstart-<framework>-<routes>-<variant>-web)`);
  if (all.issueCount > 0) lines.push(oneLine(`${all.issueCount} initReport lines not read: ${all.issues.join('; ')}`));
  if (all.dropped > 0) lines.push(`${all.dropped} initReports past the first 100,000 not read`);
  return { rows, lines, issues: all.issues, issueCount: all.issueCount, dropped: all.dropped };
}
