/**
 * `lambda-reference` (npm run lambda:reference): rebuild the calibration table, real cold starts of
 * the hello-world reference function by runtime line, architecture and memory size, from
 * maxday/lambda-perf's daily data files and/or the REPORT lines of the reference function you
 * deployed yourself (metrics/cloud/lambda-perf.ts). It writes the table (by default over the one the
 * tool ships, metrics/calibration/lambda-reference.json) and says its provenance and rows through `log`.
 */
import { buildReferenceTable, checkReferenceOut, lambdaPerfDayFiles } from '../cloud/lambda-perf.ts';
import { EnvironmentError, UsageError } from '../core/errors.ts';
import { oneLine } from '../core/escape.ts';
import { DEFAULT_LAMBDA_PERF_DAYS, referenceProvenance, type ReferenceTable } from '../calibration/lambda-reference.ts';
import { displayPath } from '../core/display.ts';
import { writeFileWhole } from '../store/files.ts';
import type { Architecture } from '../core/lambda-platform.ts';

export interface LambdaReferenceOptions {
  lambdaPerf: string[];
  reports: string[];
  runtime?: string | undefined;
  architecture?: Architecture | undefined;
  out: string;
  /** the newest this many days of the lambda-perf data (default DEFAULT_LAMBDA_PERF_DAYS) */
  days?: number | undefined;
  /** today, YYYY-MM-DD: no data file may be of a later day (default: the clock's) */
  today?: string;
}

const RUNTIME_LINE = /^nodejs\d+\.x$/;

export function runLambdaReference(options: LambdaReferenceOptions, log: (line: string) => void): ReferenceTable {
  if (options.lambdaPerf.length === 0 && options.reports.length === 0) {
    throw new UsageError('lambda:reference needs --lambda-perf FILE… (lambda-perf data files) and/or --reports FILE… (your REPORT lines)');
  }
  if (options.runtime !== undefined && !RUNTIME_LINE.test(options.runtime)) {
    throw new UsageError(`--lambda-runtime ${JSON.stringify(options.runtime)} is not a Node.js runtime line (nodejs22.x, nodejs24.x, …)`);
  }
  checkReferenceOut(options.out);
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const days = options.lambdaPerf.length ? lambdaPerfDayFiles(options.lambdaPerf, today) : { files: [], skipped: [] };
  for (const file of days.skipped) log(oneLine(`left out ${displayPath(file)}: lambda-perf's copy of its newest day`));
  const table = buildReferenceTable({
    lambdaPerfFiles: days.files,
    lambdaPerfDays: options.days ?? DEFAULT_LAMBDA_PERF_DAYS,
    reportFiles: options.reports,
    ...(options.runtime ? { runtime: options.runtime } : {}),
    ...(options.architecture ? { architecture: options.architecture } : {}),
    today,
  });
  try {
    writeFileWhole(options.out, JSON.stringify(table, null, 2) + '\n');
  } catch (error) {
    // the machine's refusal (a full disk, no permission) stays one: exit 4, not a usage error
    if (error instanceof EnvironmentError) throw new EnvironmentError(`--out: ${error.message}`);
    throw error;
  }
  log(oneLine(`calibration table: ${referenceProvenance(table)}`));
  for (const r of table.rows) {
    const i = r.initMs;
    log(
      `  ${r.runtime} ${r.architecture} ${r.memoryMB} MB: ` +
        `Init Duration ${i.median} ms (IQR ${i.p25}–${i.p75}, p95 ${i.p95}, p99 ${i.p99}, n ${i.n}), ` +
        `Duration ${r.durationMs.median} ms (IQR ${r.durationMs.p25}–${r.durationMs.p75}, n ${r.durationMs.n})`,
    );
  }
  log(`written: ${displayPath(options.out)}`);
  return table;
}
